package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/config"
	"github.com/workq-tui/workq-tui/internal/table"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

func targetsCommand() command {
	return command{
		name:    "targets",
		summary: "list the targets of the configuration file (never a password)",
		help: `List the named targets of the configuration file (--config, default
$XDG_CONFIG_HOME/workq-tui/config.toml): for each, the address, namespace,
database, whether it is read-only, TLS and where its password comes from
(a file or an environment variable, by name; never the password); for a
target behind Redis Sentinel, the sentinels and the master's name in place
of the address, and where the Sentinel password comes from. The
values are those a command run with --target NAME and the same flags would
use. With --target, only the targets named. It does not connect.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &targetsCmd{}
			c.target.addFlags(fs)
			// The connection flags are taken, so that one shell alias works
			// for every command, and listed only for --config.
			fs.VisitAll(func(f *pflag.Flag) { f.Hidden = f.Name != "config" && f.Name != "target" })
			fs.BoolVar(&c.json, "json", false, "print one JSON object")
			return c
		},
	}
}

type targetsCmd struct {
	target
	json bool
}

// targetJSON is one target as `targets --json` prints it.
type targetJSON struct {
	Name         string `json:"name"`
	Address      string `json:"address"`
	Namespace    string `json:"namespace"`
	DB           int    `json:"db"`
	User         string `json:"user"`
	ReadOnly     bool   `json:"read_only"`
	TLS          bool   `json:"tls"`
	PasswordFile string `json:"password_file"`
	PasswordEnv  string `json:"password_env"`
	File         string `json:"file"`
	Line         int    `json:"line"`
	// Sentinel is set for a target whose address the sentinels give;
	// Address is then empty.
	Sentinel *targetSentinelJSON `json:"sentinel,omitempty"`
}

// targetSentinelJSON is a target's Sentinel settings in `targets --json`.
type targetSentinelJSON struct {
	Addresses    []string `json:"addresses"`
	Master       string   `json:"master"`
	User         string   `json:"user"`
	PasswordFile string   `json:"password_file"`
	PasswordEnv  string   `json:"password_env"`
	TLS          bool     `json:"tls"`
	Replica      bool     `json:"replica"`
}

// sentinelJSON is s's Sentinel part, nil when it names no sentinel.
func sentinelJSON(s config.SentinelSettings) *targetSentinelJSON {
	if len(s.Sentinel) == 0 {
		return nil
	}
	out := &targetSentinelJSON{
		Addresses: s.Sentinel, Master: s.SentinelMaster, User: s.SentinelUser,
		PasswordFile: s.SentinelPasswordFile, PasswordEnv: s.SentinelPasswordEnv,
		TLS: s.SentinelTLS, Replica: s.Replica,
	}
	return out
}

func (c *targetsCmd) run(_ context.Context, e env, args []string) error {
	if len(args) > 0 {
		return usageErrorf("targets takes no arguments, got %q", args[0])
	}
	f, err := readConfig(e, c.configPath)
	if err != nil {
		return err
	}
	chosen := f.Targets()
	if len(c.names) > 0 {
		chosen = nil
		for _, n := range c.names {
			ct, err := f.Target(n)
			if err != nil {
				return usageErrorf("%s", textsafe.Clean(err.Error()))
			}
			chosen = append(chosen, ct)
		}
	}
	list := []targetJSON{}
	for _, ct := range chosen {
		s := config.Merge(ct, c.settings(), c.fs.Changed)
		ep, err := redisq.Options{Address: s.Redis, DB: s.DB, User: s.User, TLS: s.TLS}.Endpoint()
		if err != nil {
			return localErrorf("target %s: %w", ct.Name, err)
		}
		tj := targetJSON{
			Name: ct.Name, Address: ep.HostPort, Namespace: s.Namespace, DB: ep.DB, User: ep.User,
			ReadOnly: s.ReadOnly, TLS: ep.TLS, PasswordFile: s.PasswordFile, PasswordEnv: s.PasswordEnv,
			File: ct.File, Line: ct.Line, Sentinel: sentinelJSON(s.SentinelSettings),
		}
		if tj.Sentinel != nil {
			tj.Address = ""
		}
		list = append(list, tj)
	}
	if c.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(struct {
			File    string       `json:"file"`
			Targets []targetJSON `json:"targets"`
		}{f.Path, list})
		if err != nil {
			return localErrorf("write targets: %w", err)
		}
		return nil
	}
	return writeTargets(e, f.Path, list)
}

// writeTargets prints the list as a table. Every value is cleaned: the file
// is the operator's, but a terminal gets no control sequence from anyone.
func writeTargets(e env, path string, list []targetJSON) error {
	cl := textsafe.Clean
	bw := &errWriter{w: e.stdout}
	if path == "" {
		def, err := config.DefaultPath(e.getenv)
		if err != nil {
			def = "$XDG_CONFIG_HOME/workq-tui/" + config.FileName
		}
		fmt.Fprintf(bw, "No configuration file at %s: no targets (see --config).\n", cl(def))
		return bw.err
	}
	fmt.Fprintf(bw, "%s (%s)\n", cl(path), model.Plural(len(list), "target", "targets"))
	if len(list) > 0 {
		t := table.New(2)
		t.Row("NAME", "ADDRESS", "NAMESPACE", "DB", "READ-ONLY", "TLS", "PASSWORD FROM")
		for _, x := range list {
			pw := "-"
			switch {
			case x.PasswordFile != "":
				pw = "file " + cl(x.PasswordFile)
			case x.PasswordEnv != "":
				pw = "env " + cl(x.PasswordEnv)
			}
			addr := cl(x.Address)
			if sn := x.Sentinel; sn != nil {
				addr = "sentinel " + cl(sn.Master) + " via " + cl(strings.Join(sn.Addresses, ","))
				if sn.Replica {
					addr += " (replica)"
				}
				from := ""
				switch {
				case sn.PasswordFile != "":
					from = "sentinel: file " + cl(sn.PasswordFile)
				case sn.PasswordEnv != "":
					from = "sentinel: env " + cl(sn.PasswordEnv)
				}
				switch {
				case from != "" && pw == "-":
					pw = from
				case from != "":
					pw += ", " + from
				}
			}
			if x.User != "" {
				addr = cl(x.User) + "@" + addr
			}
			t.Row(cl(x.Name), addr, cl(x.Namespace), strconv.Itoa(x.DB), yesNo(x.ReadOnly, "read-only"), yesNo(x.TLS, "tls"), pw)
		}
		_, _ = t.WriteTo(bw) // bw keeps the first error
	}
	return bw.err
}
