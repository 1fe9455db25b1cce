package rod

import "github.com/loomsim/loom/solver/dense"

// CrossingShear is the shear energy of two yarns crossing at a node, the
// resistance of a persistent yarn-yarn contact to the yarns turning against
// each other (SB2020 sec. 4.4: "shear forces [Cirio et al. 2014]", defined on
// Lagrangian coordinates only): a penalty on the crossing angle theta,
// written on its cosine,
//
//	V = 1/2 k (cos theta - c0)^2,   cos theta = a.b / (|a| |b|),
//
// with a = xa2 - xa1 and b = xb2 - xb1 the chords between the crossing's
// neighbours along each yarn and c0 the rest cosine. Near the rest angle
// theta0 it is 1/2 k sin^2(theta0) (theta - theta0)^2, the quadratic angle
// penalty (for yarns crossing at right angles, k is the stiffness per
// radian squared), and unlike the angle it is smooth where the yarns turn
// parallel. It returns V and fills g with its gradient and H (row-major)
// with its Hessian over (xa1, xa2, xb1, xb2), 12 coordinates. Degenerate
// chords (zero length) give zero.
func CrossingShear(k, c0 float64, xa1, xa2, xb1, xb2 dense.Vec3, g *[12]float64, H *[144]float64) float64 {
	*g = [12]float64{}
	*H = [144]float64{}
	a, b := xa2.Sub(xa1), xb2.Sub(xb1)
	la, lb := a.Norm(), b.Norm()
	if !(la > 0) || !(lb > 0) {
		return 0
	}
	ah, bh := a.Scale(1/la), b.Scale(1/lb)
	c := ah.Dot(bh)
	d := c - c0
	// dc/da = (bh - c ah)/|a|, dc/db = (ah - c bh)/|b|.
	ga := bh.Sub(ah.Scale(c)).Scale(1 / la)
	gb := ah.Sub(bh.Scale(c)).Scale(1 / lb)
	// Second derivatives of c (derived in the doc above's variables):
	// Haa = -(ah ga^T + ga ah^T)/|a| - c (I - ah ah^T)/|a|^2,
	// Hab = ((I - bh bh^T)/|b| - ah gb^T)/|a|, Hbb likewise.
	var haa, hab, hbb [9]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			id := 0.0
			if i == j {
				id = 1
			}
			haa[3*i+j] = -(ah[i]*ga[j]+ga[i]*ah[j])/la - c*(id-ah[i]*ah[j])/(la*la)
			hbb[3*i+j] = -(bh[i]*gb[j]+gb[i]*bh[j])/lb - c*(id-bh[i]*bh[j])/(lb*lb)
			hab[3*i+j] = ((id-bh[i]*bh[j])/lb - ah[i]*gb[j]) / la
		}
	}
	// Nodes (xa1, xa2, xb1, xb2): a = xa2 - xa1, b = xb2 - xb1.
	sign := [4]float64{-1, 1, -1, 1}
	grad := [2]dense.Vec3{ga, gb}
	for n := 0; n < 4; n++ {
		for i := 0; i < 3; i++ {
			g[3*n+i] = k * d * sign[n] * grad[n/2][i]
		}
	}
	for n := 0; n < 4; n++ {
		for m := 0; m < 4; m++ {
			s := sign[n] * sign[m]
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					var h float64
					switch {
					case n/2 == 0 && m/2 == 0:
						h = haa[3*i+j]
					case n/2 == 1 && m/2 == 1:
						h = hbb[3*i+j]
					case n/2 == 0:
						h = hab[3*i+j]
					default:
						h = hab[3*j+i]
					}
					H[(3*n+i)*12+3*m+j] = k * s * (grad[n/2][i]*grad[m/2][j] + d*h)
				}
			}
		}
	}
	return 0.5 * k * d * d
}
