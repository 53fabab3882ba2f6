// Package dist lays out the plugin as Claude Code installs it (DESIGN §22): a directory
// marketplace holding exactly the manifests (version stamped), hooks.json, .mcp.json,
// skills, README, LICENSE and one platform's bin/hook. `make install` stages it as a
// directory; `make dist` writes it as reproducible archives with SHA256SUMS.
package dist

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// File is one entry of the payload: a slash path relative to the marketplace root.
type File struct {
	Name string
	Mode fs.FileMode // 0o644 or 0o755
	Data []byte
}

// Platform is one GOOS/GOARCH the plugin ships for.
type Platform struct{ OS, Arch string }

// ParsePlatform reads "os/arch".
func ParsePlatform(s string) (Platform, error) {
	os, arch, ok := strings.Cut(s, "/")
	if !ok || os == "" || arch == "" || strings.Contains(arch, "/") {
		return Platform{}, fmt.Errorf("platform %q: want os/arch", s)
	}
	return Platform{os, arch}, nil
}

func (p Platform) String() string { return p.OS + "/" + p.Arch }

// Hook is the executable's path in the payload: bin/hook, bin/hook.exe on windows.
func (p Platform) Hook() string {
	if p.OS == "windows" {
		return "bin/hook.exe"
	}
	return "bin/hook"
}

// Archive is the archive's file name; its entries sit under the same name without the
// extension, so unpacking gives one directory to hand to `claude plugin marketplace add`.
func (p Platform) Archive(version string) string {
	ext := ".tar.gz"
	if p.OS == "windows" {
		ext = ".zip"
	}
	return p.Base(version) + ext
}

// Base is the archive's top directory: claude-mem-<version>-<os>-<arch>.
func (p Platform) Base(version string) string {
	return fmt.Sprintf("claude-mem-%s-%s-%s", version, p.OS, p.Arch)
}

var (
	versionField = regexp.MustCompile(`("version"\s*:\s*)"[^"]*"`)
	hookCommand  = regexp.MustCompile(`(\$\{CLAUDE_PLUGIN_ROOT\}/bin/hook)"`)
	safeVersion  = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+_-]*$`)
)

// ErrSource is a repository file the payload needs that is missing or malformed.
var ErrSource = errors.New("plugin source")

// Payload reads the plugin's files from the repository root src and returns them, sorted,
// for platform p: the version stamped into both manifests, the hook command spelled
// bin/hook.exe on windows, and hook (that platform's executable) as bin/hook.
func Payload(src string, p Platform, version string, hook []byte) ([]File, error) {
	if !safeVersion.MatchString(version) {
		return nil, fmt.Errorf("version %q: want letters, digits and . + _ -", version)
	}
	read := func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(name)))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSource, err)
		}
		return b, nil
	}
	var files []File
	for _, name := range []string{".claude-plugin/plugin.json", ".claude-plugin/marketplace.json"} {
		b, err := read(name)
		if err != nil {
			return nil, err
		}
		if !versionField.Match(b) {
			return nil, fmt.Errorf("%w: %s has no \"version\" to stamp", ErrSource, name)
		}
		files = append(files, File{name, 0o644, versionField.ReplaceAll(b, []byte(`${1}"`+version+`"`))})
	}
	for _, name := range []string{"hooks.json", ".mcp.json"} {
		b, err := read(name)
		if name == ".mcp.json" && errors.Is(err, fs.ErrNotExist) {
			continue // the MCP server is optional in the payload until it exists
		}
		if err != nil {
			return nil, err
		}
		if !hookCommand.Match(b) {
			return nil, fmt.Errorf("%w: %s never runs ${CLAUDE_PLUGIN_ROOT}/bin/hook", ErrSource, name)
		}
		if p.OS == "windows" {
			b = hookCommand.ReplaceAll(b, []byte(`${1}.exe"`))
		}
		files = append(files, File{name, 0o644, b})
	}
	for _, name := range []string{"README.md", "LICENSE"} {
		b, err := read(name)
		if err != nil {
			return nil, err
		}
		files = append(files, File{name, 0o644, b})
	}
	skills := filepath.Join(src, "skills")
	err := filepath.WalkDir(skills, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == skills {
			return nil
		}
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		files = append(files, File{filepath.ToSlash(rel), 0o644, b})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: skills: %v", ErrSource, err)
	}
	files = append(files, File{p.Hook(), 0o755, hook})
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return files, nil
}

// entries is what an archive holds under base/: every file, and every directory (base/
// itself included) as mode fs.ModeDir with a name ending in "/", sorted by name, so a
// directory comes before what it holds.
func entries(base string, files []File) []File {
	out := []File{{Name: base + "/", Mode: fs.ModeDir | 0o755}}
	seen := map[string]bool{}
	for _, f := range files {
		out = append(out, File{base + "/" + f.Name, f.Mode, f.Data})
		for d := path.Dir(f.Name); d != "." && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			out = append(out, File{Name: base + "/" + d + "/", Mode: fs.ModeDir | 0o755})
		}
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Stage writes files as the directory dir, replacing what was there: it is written beside
// dir and swapped in, so a session starting meanwhile sees the old plugin or the new one.
func Stage(dir string, files []File) error {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(tmp, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, f.Mode); err != nil {
			return err
		}
	}
	old := tmp + ".old"
	if err := os.Rename(dir, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	return os.RemoveAll(old)
}

// WriteTarGz writes files under the directory base/ as a gzip'd tar that depends only on
// its inputs: entries sorted, every mtime mtime, uid/gid 0 with no names, no gzip header
// time or name.
func WriteTarGz(w io.Writer, base string, files []File, mtime time.Time) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	for _, f := range entries(base, files) {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: f.Name, Mode: int64(f.Mode.Perm()), Size: int64(len(f.Data)), ModTime: mtime.UTC(), Format: tar.FormatPAX}
		if f.Mode.IsDir() {
			h.Typeflag = tar.TypeDir
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// WriteZip is WriteTarGz's zip form (for windows): sorted entries, one fixed mtime, unix
// modes kept.
func WriteZip(w io.Writer, base string, files []File, mtime time.Time) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	for _, f := range entries(base, files) {
		h := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: mtime.UTC()}
		if f.Mode.IsDir() {
			h.Method = zip.Store
		}
		h.SetMode(f.Mode)
		ew, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := ew.Write(f.Data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// Archive writes platform p's archive into out and returns its file name.
func Archive(out string, p Platform, version string, files []File, mtime time.Time) (string, error) {
	var buf bytes.Buffer
	base := p.Base(version)
	var err error
	if p.OS == "windows" {
		err = WriteZip(&buf, base, files, mtime)
	} else {
		err = WriteTarGz(&buf, base, files, mtime)
	}
	if err != nil {
		return "", err
	}
	name := p.Archive(version)
	return name, os.WriteFile(filepath.Join(out, name), buf.Bytes(), 0o644)
}

// WriteSums writes out/SHA256SUMS for the named files in out, in sha256sum's format.
func WriteSums(out string, names []string) error {
	names = slices.Sorted(slices.Values(names))
	var b strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(out, n))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%x  %s\n", sha256.Sum256(data), n)
	}
	return os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(b.String()), 0o644)
}
