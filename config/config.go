// Package config reads workq-tui's configuration file: named targets, each a
// set of connection settings (the same as the connection flags), and merges
// a target with the flags given on the command line; and the screen's key
// bindings and columns (screen.go).
//
// The file is TOML, read with github.com/pelletier/go-toml/v2: its parser
// (package unstable) gives every key with its place in the file, so that
// each unknown key and each bad value is reported on its own line with the
// file and line number, all in one pass. BurntSushi/toml keeps the positions
// of keys to itself, so an unknown key could only be reported by name.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/workq-tui/workq-tui/internal/safefile"
	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// FileName is the configuration file's name inside its directory.
const FileName = "config.toml"

// ErrNoTarget is returned by File.Target for a name the file does not define.
var ErrNoTarget = errors.New("no such target")

// Settings are the connection settings of a target or of the command line,
// one field per connection flag (and password_env, which has no flag: the
// command line's password variable is REDIS_PASSWORD).
type Settings struct {
	// Redis is host:port, or a redis:// or rediss:// URL without a password.
	Redis     string
	Namespace string
	DB        int
	User      string
	// PasswordFile names a file holding the password (~ expanded);
	// PasswordEnv an environment variable holding it. At most one is set.
	PasswordFile  string
	PasswordEnv   string
	TLS           bool
	TLSCA         string
	TLSSkipVerify bool
	Timeout       time.Duration
	DeadAfter     time.Duration
	ReadOnly      bool
	SentinelSettings
}

// Target is one `[targets.NAME]` table of the file.
type Target struct {
	Name string
	// File and Line say where the target's table starts.
	File string
	Line int
	Settings
	// Health are the job health keys the table gives (see HealthKeys),
	// each as the text its flag takes.
	Health map[string]string
	// set holds the keys the table gives.
	set map[string]bool
}

// Has reports whether the target's table gives the key (a key of the file,
// such as "tls_ca").
func (t *Target) Has(key string) bool { return t.set[key] }

// File is a parsed configuration file.
type File struct {
	Path    string
	targets map[string]*Target
	// Bindings are the keys of the screen's actions the file's [keys]
	// table gives (action name to keys, see Actions); an action it does
	// not name keeps its default keys.
	Bindings map[string][]string
	// Columns are the visible columns of the views the file's
	// [columns.VIEW] tables configure, in the order shown (see
	// ViewColumns); a view it does not name shows its default columns.
	Columns map[string][]string
	// Queries are the saved queries of [queries], by name, for @NAME in
	// a query (model.ExpandSaved).
	Queries map[string]string
}

// Names lists the targets in name order.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.targets))
	for n := range f.targets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Targets lists the targets in name order.
func (f *File) Targets() []*Target {
	var ts []*Target
	for _, n := range f.Names() {
		ts = append(ts, f.targets[n])
	}
	return ts
}

// Target returns the named target; the error names the file and the targets
// it has.
func (f *File) Target(name string) (*Target, error) {
	if t, ok := f.targets[name]; ok {
		return t, nil
	}
	if f.Path == "" {
		return nil, fmt.Errorf("target %q: %w (no configuration file)", name, ErrNoTarget)
	}
	have := "it defines none"
	if len(f.targets) > 0 {
		have = "it defines " + strings.Join(f.Names(), ", ")
	}
	return nil, fmt.Errorf("target %q: %w in %s (%s)", name, ErrNoTarget, f.Path, have)
}

// DefaultPath is $XDG_CONFIG_HOME/workq-tui/config.toml, or
// ~/.config/workq-tui/config.toml when XDG_CONFIG_HOME is not set.
func DefaultPath(getenv func(string) string) (string, error) {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home := getenv("HOME")
		if home == "" {
			return "", errors.New("neither XDG_CONFIG_HOME nor HOME is set: name the configuration file with --config")
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "workq-tui", FileName), nil
}

// Load reads and checks a configuration file. home is the directory ~ stands
// for. The error of a file that cannot be read wraps the os error (so
// errors.Is(err, fs.ErrNotExist) tells a missing file); the problems of a
// file that can be read are a *Problems.
func Load(path, home string) (*File, error) {
	// Only a regular file of a bounded size is read: a FIFO or a device
	// named by --config is refused rather than waited on.
	data, st, err := safefile.ReadFile(path, safefile.Rules{Max: maxConfigBytes})
	if err != nil {
		return nil, fmt.Errorf("read configuration: %w", err)
	}
	return Parse(path, data, st.Mode().Perm(), home)
}

// maxConfigBytes bounds a configuration file: a few hundred targets fit in
// a fraction of it.
const maxConfigBytes = 4 << 20

// LoadDefault reads the file at DefaultPath; a missing file is no error and
// gives a File without targets. Without a default path (neither
// XDG_CONFIG_HOME nor HOME set) the error says to use --config.
func LoadDefault(getenv func(string) string) (*File, error) {
	path, err := DefaultPath(getenv)
	if err != nil {
		return nil, err
	}
	f, err := Load(path, getenv("HOME"))
	if errors.Is(err, os.ErrNotExist) {
		return &File{}, nil
	}
	return f, err
}

// Problem is one thing wrong in a file.
type Problem struct {
	File string
	Line int // 0: the file as a whole
	Msg  string
}

// String is the problem on one line, the file's name and what the file
// wrote (a key's or an action's name) made safe for the terminal.
func (p Problem) String() string {
	if p.Line > 0 {
		return textsafe.Clean(fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg))
	}
	return textsafe.Clean(fmt.Sprintf("%s: %s", p.File, p.Msg))
}

// Problems are every problem found in a file, in line order. Error gives
// one line per problem.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// expandHome replaces a leading ~ (alone or before a slash) with home.
func expandHome(p, home string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	if home == "" {
		return "", errors.New("starts with ~ but HOME is not set")
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~")), nil
}
