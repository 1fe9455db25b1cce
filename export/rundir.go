package export

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ManifestName is the file in a run folder that lists, one name a line, every
// file the run wrote there (a name is added before its file is created, so
// a run killed mid-write still lists it).
const ManifestName = "loom-manifest.txt"

const manifestHeader = "# files written by loom into this folder; loom run --overwrite removes these (and their temporaries) and no other file"

// RunDir is an output folder a run owns. It never deletes, truncates or
// replaces a file it did not write: a new run needs a new or empty folder;
// with overwrite, the files that an earlier run listed in its manifest (and
// their temporaries left by a crash) are removed first and every other file
// is kept; a file this run would write that exists and is not its own is an
// error. Files are written to a temporary beside them and renamed into place,
// with mode 0666 less the umask (0644 under umask 022).
type RunDir struct {
	Dir      string
	manifest *os.File
	written  map[string]bool
}

// OpenRunDir makes dir (and its parents) if needed and takes ownership of it
// as described for RunDir. It reports an error naming the folder when dir
// is not empty and overwrite is false.
func OpenRunDir(dir string, overwrite bool) (*RunDir, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	if len(entries) > 0 {
		if !overwrite {
			return nil, fmt.Errorf("output folder %s is not empty (%d entries): loom writes only into a new or empty folder; "+
				"give another --out, or --overwrite to replace what an earlier loom run wrote there (the files in its %s; other files are kept)",
				dir, len(entries), ManifestName)
		}
		if err := removeListed(dir); err != nil {
			return nil, err
		}
	}
	d := &RunDir{Dir: dir, written: map[string]bool{}}
	if err := d.claim(ManifestName); err != nil {
		return nil, err
	}
	if d.manifest, err = os.OpenFile(filepath.Join(dir, ManifestName), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666); err != nil {
		return nil, err
	}
	if _, err := fmt.Fprintf(d.manifest, "%s\n%s\n", manifestHeader, ManifestName); err != nil {
		d.manifest.Close()
		return nil, err
	}
	return d, nil
}

// AppendRunDir opens the existing folder dir to add files to it (pictures of
// a run, its glTF): the files its manifest lists may be replaced, any other
// existing file may not, and new files are added to the manifest (made if
// the folder has none).
func AppendRunDir(dir string) (*RunDir, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", dir)
	}
	d := &RunDir{Dir: dir, written: map[string]bool{}}
	names, err := listed(dir)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		d.written[n] = true
	}
	if err := d.claim(ManifestName); err != nil {
		return nil, err
	}
	if d.manifest, err = os.OpenFile(filepath.Join(dir, ManifestName), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		if _, err := fmt.Fprintf(d.manifest, "%s\n%s\n", manifestHeader, ManifestName); err != nil {
			d.manifest.Close()
			return nil, err
		}
	}
	return d, nil
}

// removeListed removes the files named in dir's manifest, their temporaries
// and then the manifest itself. Names that are not plain file names in dir
// are errors (the manifest is not loom's).
func removeListed(dir string) error {
	names, err := listed(dir)
	if err != nil {
		return err
	}
	for _, name := range names {
		for _, p := range []string{name, tempName(name)} {
			if err := os.Remove(filepath.Join(dir, p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// listed returns the names in dir's manifest (none when it has none).
func listed(dir string) ([]string, error) {
	f, err := os.Open(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		name := sc.Text()
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		if name != filepath.Base(name) || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
			return nil, fmt.Errorf("%s line %d: %q is not a file name in the folder; not removing anything", filepath.Join(dir, ManifestName), line, name)
		}
		names = append(names, name)
	}
	return names, sc.Err()
}

// tempName is the temporary a file is written to before it is renamed into
// place; fixed, so that a later --overwrite finds what a crash left.
func tempName(name string) string { return "." + name + ".tmp" }

// claim lists name in the manifest, after checking that no file of that
// name exists that this run did not write.
func (d *RunDir) claim(name string) error {
	if d.written[name] {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(d.Dir, name)); err == nil {
		return fmt.Errorf("%s exists and loom did not write it: not replacing it (choose another --out)", filepath.Join(d.Dir, name))
	}
	if d.manifest != nil {
		if _, err := fmt.Fprintln(d.manifest, name); err != nil {
			return err
		}
	}
	d.written[name] = true
	return nil
}

// WriteFile writes the file name in the folder through write, atomically: a
// reader (or a crash) never sees it half written, and a failed write leaves
// an earlier version of this run's file as it was.
func (d *RunDir) WriteFile(name string, write func(io.Writer) error) error {
	if err := d.claim(name); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(d.Dir, name), filepath.Join(d.Dir, tempName(name)), write)
}

// Create creates the file name in the folder for writing as the run goes
// (such as stats.jsonl); the caller closes it.
func (d *RunDir) Create(name string) (*os.File, error) {
	if err := d.claim(name); err != nil {
		return nil, err
	}
	return os.OpenFile(filepath.Join(d.Dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
}

// Path returns the path of name in the folder.
func (d *RunDir) Path(name string) string { return filepath.Join(d.Dir, name) }

// Close closes the manifest.
func (d *RunDir) Close() error { return d.manifest.Close() }

// writeAtomic writes path through write via the temporary tmp in the same
// folder and a rename; the temporary is removed when anything fails.
func writeAtomic(path, tmp string, write func(io.Writer) error) (err error) {
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
