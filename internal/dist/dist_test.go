package dist

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func source(t *testing.T, withMCP bool) string {
	t.Helper()
	src := t.TempDir()
	files := map[string]string{
		".claude-plugin/plugin.json":      `{"name": "claude-mem", "version": "0.1.0", "hooks": "./hooks.json"}`,
		".claude-plugin/marketplace.json": `{"name": "claude-mem-go", "plugins": [{"name": "claude-mem", "source": "./", "version": "0.1.0"}]}`,
		"hooks.json":                      `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/hook", "args": []}]}]}}`,
		"README.md":                       "# readme\n",
		"LICENSE":                         "MIT\n",
		"skills/memory/SKILL.md":          "skill\n",
		"Makefile":                        "not shipped\n",
		"go.mod":                          "not shipped\n",
	}
	if withMCP {
		files[".mcp.json"] = `{"mcpServers": {"memory": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/hook", "args": ["mcp"]}}}`
	}
	for name, content := range files {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return src
}

func names(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Name)
	}
	return out
}

func content(files []File, name string) string {
	for _, f := range files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}

// The payload is exactly the plugin's files, the version stamped, bin/hook.exe (and the
// hooks spelled so) on windows; nothing else of the source (Makefile, go.mod) goes in.
func TestPayload(t *testing.T) {
	for _, tc := range []struct {
		p     Platform
		mcp   bool
		want  []string
		hook  string
		other string // the hook name that must not appear
	}{
		{Platform{"linux", "amd64"}, true, []string{".claude-plugin/marketplace.json", ".claude-plugin/plugin.json", ".mcp.json", "LICENSE", "README.md", "bin/hook", "hooks.json", "skills/memory/SKILL.md"}, "/bin/hook\"", "hook.exe"},
		{Platform{"windows", "arm64"}, true, []string{".claude-plugin/marketplace.json", ".claude-plugin/plugin.json", ".mcp.json", "LICENSE", "README.md", "bin/hook.exe", "hooks.json", "skills/memory/SKILL.md"}, "/bin/hook.exe\"", "/bin/hook\""},
		{Platform{"darwin", "arm64"}, false, []string{".claude-plugin/marketplace.json", ".claude-plugin/plugin.json", "LICENSE", "README.md", "bin/hook", "hooks.json", "skills/memory/SKILL.md"}, "/bin/hook\"", "hook.exe"},
	} {
		t.Run(tc.p.String(), func(t *testing.T) {
			files, err := Payload(source(t, tc.mcp), tc.p, "1.2.3-4-gabc", []byte("EXE"))
			if err != nil {
				t.Fatal(err)
			}
			if got := names(files); !slices.Equal(got, tc.want) {
				t.Fatalf("payload %v, want %v", got, tc.want)
			}
			for _, f := range []string{".claude-plugin/plugin.json", ".claude-plugin/marketplace.json"} {
				if c := content(files, f); !strings.Contains(c, `"version": "1.2.3-4-gabc"`) || strings.Contains(c, "0.1.0") {
					t.Errorf("%s not stamped: %s", f, c)
				}
			}
			for _, f := range []string{"hooks.json", ".mcp.json"} {
				if c := content(files, f); tc.mcp || f == "hooks.json" {
					if !strings.Contains(c, tc.hook) || strings.Contains(c, tc.other) {
						t.Errorf("%s: %s", f, c)
					}
				}
			}
			if c := content(files, tc.p.Hook()); c != "EXE" {
				t.Errorf("%s holds %q", tc.p.Hook(), c)
			}
		})
	}
	if _, err := Payload(source(t, false), Platform{"linux", "amd64"}, "1.0 beta", nil); err == nil {
		t.Error("a version with a space was accepted")
	}
	src := source(t, false)
	if err := os.Remove(filepath.Join(src, "LICENSE")); err != nil {
		t.Fatal(err)
	}
	if _, err := Payload(src, Platform{"linux", "amd64"}, "1", nil); err == nil {
		t.Error("a source without LICENSE was packed")
	}
}

// Archives depend only on their inputs (two writes are byte-identical) and carry fixed metadata: one mtime, uid/gid 0, no owner names, modes kept.
func TestArchivesAreReproducible(t *testing.T) {
	files, err := Payload(source(t, true), Platform{"linux", "amd64"}, "1", []byte("EXE"))
	if err != nil {
		t.Fatal(err)
	}
	mtime := time.Unix(1796000000, 0)
	for _, w := range []struct {
		name  string
		write func(io.Writer, string, []File, time.Time) error
	}{{"tar.gz", WriteTarGz}, {"zip", WriteZip}} {
		var a, b bytes.Buffer
		if err := w.write(&a, "base", files, mtime); err != nil {
			t.Fatal(err)
		}
		if err := w.write(&b, "base", files, mtime); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two writes differ", w.name)
		}
		if w.name == "zip" {
			zr, err := zip.NewReader(bytes.NewReader(a.Bytes()), int64(a.Len()))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range zr.File {
				if !f.Modified.Equal(mtime) {
					t.Errorf("zip %s mtime %v", f.Name, f.Modified)
				}
				if f.Name == "base/bin/hook" && f.Mode().Perm() != 0o755 {
					t.Errorf("zip bin/hook mode %v", f.Mode())
				}
			}
			continue
		}
		zr, err := gzip.NewReader(&a)
		if err != nil {
			t.Fatal(err)
		}
		if !zr.ModTime.IsZero() || zr.Name != "" {
			t.Errorf("gzip header carries time %v name %q", zr.ModTime, zr.Name)
		}
		tr := tar.NewReader(zr)
		var got []string
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, h.Name)
			if !h.ModTime.Equal(mtime) || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
				t.Errorf("%s: mtime %v uid %d gid %d uname %q gname %q", h.Name, h.ModTime, h.Uid, h.Gid, h.Uname, h.Gname)
			}
			if h.Name == "base/bin/hook" && h.Mode != 0o755 {
				t.Errorf("bin/hook mode %o", h.Mode)
			}
		}
		if !slices.IsSorted(got) || got[0] != "base/" {
			t.Errorf("entries not sorted under base/: %v", got)
		}
	}
}
