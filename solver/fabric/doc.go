// Package fabric builds the geometry of yarn-level fabrics for Eulerian-on-
// Lagrangian rods (Sanchez-Banderas et al. 2020, "SB2020", sec. 5; the woven
// model of Cirio et al. 2014 and the knits of Cirio et al. 2017): yarn
// centrelines as polylines evenly spaced in arc length, and the persistent
// yarn-yarn crossings of the pattern's topology (SB2020 sec. 5: "for
// intra-fabric contacts, we simply use the initial topology of the weave or
// knit pattern"), each with the node of either yarn that sits on it and which
// yarn passes over.
//
//   - Woven: plain, twill n/m, basket n and satin n weaves from warp and weft
//     counts, yarn spacing, yarn radius and crimp (the out-of-plane amplitude
//     at crossings, as a fraction of the yarn radius: 1 makes crossing yarns
//     touch, their centrelines 2 r apart).
//   - Knit: rows of stitch instructions (k knit, p purl, s slip) tiled over a
//     patch: each course is one yarn of loops of a fixed parametric shape,
//     purl stitches mirrored through the fabric plane, a slipped stitch a
//     float behind the fabric with the loop below it stretched up to the next
//     row. Crossings are the intersections of the courses' projections onto
//     the fabric plane (the designed layout, not proximity in 3D).
//   - Resample and CatmullRom: curved strands given as polylines or splines,
//     resampled to a node spacing.
//
// Geometry is in the fabric's own frame (x along wefts/courses, y along warps
// /wales, z out of plane, origin at the patch's corner); placement is the
// caller's. It knows nothing of scenes or the ECS.
package fabric
