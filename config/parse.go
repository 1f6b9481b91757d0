package config

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/workq-tui/workq-tui/internal/safefile"
	"github.com/workq-tui/workq-tui/redisq"
)

// Keys lists every key a target's table may hold, in the order `targets`
// and the documentation show them.
func Keys() []string {
	return []string{
		"redis", "namespace", "db", "user", "password_file", "password_env",
		"tls", "tls_ca", "tls_skip_verify", "timeout", "dead_after", "read_only",
		"sentinel", "sentinel_master", "sentinel_user", "sentinel_password_file",
		"sentinel_password_env", "sentinel_tls", "replica",
		"fail_window", "fail_baseline", "fail_floor", "fail_multiple",
		"wait_limit", "starve_after", "paused_limit", "checkin_limit",
	}
}

var (
	targetName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	envName    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// passwordAdvice says where a password goes instead of the file.
const passwordAdvice = "name a file holding it with password_file, or an environment variable with password_env"

// Parse checks the contents of a configuration file. name is the file's
// path as errors show it, perm its permission bits and home the directory ~
// stands for. Every problem found is reported, one per line, as Problems.
func Parse(name string, data []byte, perm fs.FileMode, home string) (*File, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ := de.Position()
			return nil, Problems{{File: name, Line: line, Msg: strings.TrimPrefix(de.Error(), "toml: ")}}
		}
		return nil, Problems{{File: name, Msg: err.Error()}}
	}
	lines := keyLines(data)
	p := &parser{name: name, home: home, lines: lines}
	f := &File{Path: name, targets: map[string]*Target{}}
	for _, k := range sortedKeys(doc) {
		switch k {
		case "keys":
			f.Bindings = p.bindings(doc[k])
			continue
		case "columns":
			f.Columns = p.columns(doc[k])
			continue
		case "queries":
			f.Queries = p.queries(doc[k])
			continue
		case "targets":
		default:
			p.add([]string{k}, "unknown key %q: the file holds [targets.NAME], [keys], [columns.VIEW] and [queries] tables", k)
			continue
		}
		tables, ok := doc[k].(map[string]any)
		if !ok {
			p.add([]string{k}, "targets must be a table of [targets.NAME] tables")
			continue
		}
		for _, tn := range sortedKeys(tables) {
			if t := p.target(tn, tables[tn]); t != nil {
				f.targets[tn] = t
			}
		}
	}
	if len(p.problems) == 0 && safefile.OthersCanRead(perm) {
		for _, t := range f.Targets() {
			key := ""
			for _, k := range []string{"password_file", "password_env", "sentinel_password_file", "sentinel_password_env"} {
				if key == "" && t.Has(k) {
					key = k
				}
			}
			if key != "" {
				p.add([]string{"targets", t.Name, key}, "the file names a password source (%s) but other users can read it (mode %04o): chmod 600 %s", key, perm, name)
				break
			}
		}
	}
	if len(p.problems) > 0 {
		sort.SliceStable(p.problems, func(i, j int) bool { return p.problems[i].Line < p.problems[j].Line })
		return nil, p.problems
	}
	return f, nil
}

type parser struct {
	name     string
	home     string
	lines    map[string]int
	problems Problems
}

func (p *parser) line(path []string) int { return p.lines[strings.Join(path, "\x00")] }

func (p *parser) add(path []string, format string, a ...any) {
	p.problems = append(p.problems, Problem{File: p.name, Line: p.line(path), Msg: fmt.Sprintf(format, a...)})
}

// target checks one [targets.NAME] table; nil when it has problems.
func (p *parser) target(name string, v any) *Target {
	before := len(p.problems)
	path := []string{"targets", name}
	tbl, ok := v.(map[string]any)
	if !ok {
		p.add(path, "targets.%s must be a table of connection settings", name)
		return nil
	}
	if !targetName.MatchString(name) {
		p.add(path, "target name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", name)
	}
	t := &Target{Name: name, File: p.name, Line: p.line(path), set: map[string]bool{}}
	for _, k := range sortedKeys(tbl) {
		kp := append(append([]string(nil), path...), k)
		if err := p.setKey(t, k, tbl[k]); err != nil {
			p.add(kp, "targets.%s.%s: %v", name, k, err)
			continue
		}
		t.set[k] = true
	}
	if t.PasswordFile != "" && t.PasswordEnv != "" {
		p.add(append(path, "password_env"), "targets.%s: give password_file or password_env, not both", name)
	}
	if len(p.problems) == before {
		p.checkSentinel(t, path)
	}
	if len(p.problems) > before {
		return nil
	}
	return t
}

// setKey stores one key's value in the target.
func (p *parser) setKey(t *Target, key string, v any) error {
	if ok, err := p.setSentinelKey(t, key, v); ok {
		return err
	}
	if isHealthKey(key) {
		return setHealthKey(t, key, v)
	}
	switch key {
	case "password", "pass", "redis_password", "requirepass":
		return fmt.Errorf("a password is not kept in this file: %s", passwordAdvice)
	case "redis":
		s, err := str(v)
		if err != nil {
			return err
		}
		if err := checkAddress(s); err != nil {
			return err
		}
		t.Redis = s
	case "namespace":
		s, err := str(v)
		if err != nil {
			return err
		}
		if s == "" {
			return errors.New("must not be empty")
		}
		t.Namespace = s
	case "db":
		n, ok := v.(int64)
		if !ok {
			return want("a whole number", v)
		}
		if n < 0 || n > 1<<31-1 {
			return fmt.Errorf("%d is not a database number", n)
		}
		t.DB = int(n)
	case "user":
		s, err := str(v)
		if err != nil {
			return err
		}
		t.User = s
	case "password_file", "tls_ca":
		s, err := str(v)
		if err != nil {
			return err
		}
		if s == "" {
			return errors.New("must not be empty")
		}
		if s, err = expandHome(s, p.home); err != nil {
			return err
		}
		if key == "tls_ca" {
			t.TLSCA = s
		} else {
			t.PasswordFile = s
		}
	case "password_env":
		s, err := str(v)
		if err != nil {
			return err
		}
		if !envName.MatchString(s) {
			return fmt.Errorf("%q is not an environment variable name", s)
		}
		t.PasswordEnv = s
	case "tls", "tls_skip_verify", "read_only":
		b, ok := v.(bool)
		if !ok {
			return want("true or false", v)
		}
		switch key {
		case "tls":
			t.TLS = b
		case "tls_skip_verify":
			t.TLSSkipVerify = b
		default:
			t.ReadOnly = b
		}
	case "timeout", "dead_after":
		s, ok := v.(string)
		if !ok {
			return want(`a duration in quotes, such as "5s"`, v)
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return fmt.Errorf("%q is not a positive duration such as \"5s\"", s)
		}
		if key == "timeout" {
			t.Timeout = d
		} else {
			t.DeadAfter = d
		}
	default:
		return fmt.Errorf("unknown key (the keys are %s)", strings.Join(Keys(), ", "))
	}
	return nil
}

// checkAddress refuses what redisq would refuse, in the file's words.
func checkAddress(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	if _, err := (redisq.Options{Address: s}).Endpoint(); err != nil {
		if strings.Contains(err.Error(), "password") {
			return fmt.Errorf("the URL holds a password: %s", passwordAdvice)
		}
		return errors.New(strings.ReplaceAll(err.Error(), "--redis", "redis"))
	}
	return nil
}

func str(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", want("a string in quotes", v)
	}
	return s, nil
}

func want(what string, v any) error {
	return fmt.Errorf("want %s, not %s", what, tomlType(v))
}

func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	default:
		return "a date or time"
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// keyLines maps every key path of the document (its parts joined by NUL) to
// the line where it is defined; a table's path to the line of its header.
// The document has already been parsed without error.
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyParts(&p, e, nil, lines)
		case unstable.KeyValue:
			path := keyParts(&p, e, table, lines)
			inlineLines(&p, e.Value(), path, lines)
		}
	}
	return lines
}

// keyParts reads a node's (possibly dotted) key below prefix, records the
// line of each path it passes and returns the full path.
func keyParts(p *unstable.Parser, n *unstable.Node, prefix []string, lines map[string]int) []string {
	path := append([]string(nil), prefix...)
	it := n.Key()
	for it.Next() {
		k := it.Node()
		path = append(path, string(k.Data))
		id := strings.Join(path, "\x00")
		if _, ok := lines[id]; !ok {
			lines[id] = p.Shape(k.Raw).Start.Line
		}
	}
	return path
}

// inlineLines records the keys of an inline table value.
func inlineLines(p *unstable.Parser, v *unstable.Node, path []string, lines map[string]int) {
	if v == nil || v.Kind != unstable.InlineTable {
		return
	}
	it := v.Children()
	for it.Next() {
		kv := it.Node()
		if kv.Kind != unstable.KeyValue {
			continue
		}
		sub := keyParts(p, kv, path, lines)
		inlineLines(p, kv.Value(), sub, lines)
	}
}
