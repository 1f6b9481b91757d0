package config

import (
	"fmt"

	"github.com/workq-tui/workq-tui/redisq"
)

// FlagKeys maps each connection flag to the key of the file that stands for
// it. password_env has no flag.
func FlagKeys() map[string]string {
	return map[string]string{
		"redis": "redis", "namespace": "namespace", "db": "db", "user": "user",
		"password-file": "password_file", "tls": "tls", "tls-ca": "tls_ca",
		"tls-skip-verify": "tls_skip_verify", "timeout": "timeout",
		"dead-after": "dead_after", "read-only": "read_only",
		"sentinel": "sentinel", "sentinel-master": "sentinel_master", "sentinel-user": "sentinel_user",
		"sentinel-password-file": "sentinel_password_file", "sentinel-tls": "sentinel_tls", "replica": "replica",
	}
}

// Merge gives the settings a command runs with: for each setting, the flag
// when the command line set it, else the target's key when its table gives
// it, else the flag's default (the value in flags). changed reports whether
// the command line set a flag, by the flag's name (pflag's
// FlagSet.Changed). t may be nil (no --target): the flags alone.
//
// Some settings do not simply override:
//   - read_only: a target with read_only = true stays read-only whatever the
//     flags say; --read-only makes any target read-only.
//   - the password: --password-file on the command line wins over the
//     target's password_file or password_env; the target's password_env
//     replaces REDIS_PASSWORD. The same for the Sentinel password
//     (--sentinel-password-file, SENTINEL_PASSWORD).
//   - the address: --redis on the command line drops the target's Sentinel
//     keys unless --sentinel is given too.
func Merge(t *Target, flags Settings, changed func(flag string) bool) Settings {
	if t == nil {
		return flags
	}
	out := flags
	pick := func(flag string, apply func()) {
		if !changed(flag) && t.Has(FlagKeys()[flag]) {
			apply()
		}
	}
	pick("redis", func() { out.Redis = t.Redis })
	pick("namespace", func() { out.Namespace = t.Namespace })
	pick("db", func() { out.DB = t.DB })
	pick("user", func() { out.User = t.User })
	pick("tls", func() { out.TLS = t.TLS })
	pick("tls-ca", func() { out.TLSCA = t.TLSCA })
	pick("tls-skip-verify", func() { out.TLSSkipVerify = t.TLSSkipVerify })
	pick("timeout", func() { out.Timeout = t.Timeout })
	pick("dead-after", func() { out.DeadAfter = t.DeadAfter })
	out.ReadOnly = flags.ReadOnly || t.ReadOnly
	if !changed("password-file") {
		out.PasswordFile, out.PasswordEnv = t.PasswordFile, t.PasswordEnv
	}
	mergeSentinel(&out, t, changed)
	return out
}

// DefaultPasswordEnv is the variable the password comes from when neither a
// password file nor a target's password_env names another source.
const DefaultPasswordEnv = "REDIS_PASSWORD"

// Password reads the password the settings name: the password file, else
// the variable PasswordEnv, else REDIS_PASSWORD; "" when there is none. A
// password_env naming an unset variable is an error (the target asks for a
// password the environment does not give).
func (s Settings) Password(getenv func(string) string) (string, error) {
	switch {
	case s.PasswordFile != "":
		pw, err := ReadSecretFile(s.PasswordFile)
		if err != nil {
			return "", fmt.Errorf("read password file: %w", err)
		}
		return pw, nil
	case s.PasswordEnv != "":
		v := getenv(s.PasswordEnv)
		if v == "" {
			return "", fmt.Errorf("the password variable %s is not set", s.PasswordEnv)
		}
		return v, nil
	}
	return getenv(DefaultPasswordEnv), nil
}

// Options are the redisq options of the settings, with the password read
// (see Password).
func (s Settings) Options(getenv func(string) string) (redisq.Options, error) {
	pw, err := s.Password(getenv)
	if err != nil {
		return redisq.Options{}, err
	}
	return redisq.Options{
		Address:       s.Redis,
		DB:            s.DB,
		User:          s.User,
		Password:      pw,
		TLS:           s.TLS,
		TLSCAFile:     s.TLSCA,
		TLSSkipVerify: s.TLSSkipVerify,
		Timeout:       s.Timeout,
		ReadOnly:      s.ReadOnly,
	}, nil
}
