package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/demo"
	"github.com/workq-tui/workq-tui/redisq"
)

// target is where a command connects: the Redis address and credentials,
// TLS, the timeout of each call, the read-only guard and the namespace; or,
// with --demo, an embedded Redis running a simulated deployment. Every
// command that talks to Redis embeds one, so these flags are declared, read
// and checked in one place, and its address names Redis in the command's
// errors (see withAddress).
type target struct {
	redis        redisq.Options
	passwordFile string
	namespace    string
	demo         bool
	demoSeed     int64
	sentinel     sentinelFlags

	// endpoint is the address as shown, once open has a dialer.
	endpoint string
}

func (t *target) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&t.redis.Address, "redis", "localhost:6379", "Redis `address`: host:port, or a redis:// or rediss:// URL (no password in it)")
	fs.StringVarP(&t.namespace, "namespace", "n", "work", "gocraft/work `namespace`")
	fs.IntVar(&t.redis.DB, "db", 0, "Redis database `number`")
	fs.StringVar(&t.redis.User, "user", "", "Redis ACL user `name` (the password comes from REDIS_PASSWORD or --password-file)")
	fs.StringVar(&t.passwordFile, "password-file", "", "read the Redis password from `FILE` (else from REDIS_PASSWORD)")
	fs.BoolVar(&t.redis.TLS, "tls", false, "connect with TLS")
	fs.StringVar(&t.redis.TLSCAFile, "tls-ca", "", "trust the CA certificates in `FILE` (PEM) for TLS")
	fs.BoolVar(&t.redis.TLSSkipVerify, "tls-skip-verify", false, "do not verify the server's TLS certificate")
	fs.DurationVar(&t.redis.Timeout, "timeout", 5*time.Second, "timeout of each Redis call")
	fs.BoolVar(&t.redis.ReadOnly, "read-only", false, "never write to Redis: every write command is refused before it is sent")
	fs.BoolVar(&t.demo, "demo", false, "run on an embedded Redis with a simulated gocraft/work deployment")
	fs.Int64Var(&t.demoSeed, "demo-seed", 1, "seed of the --demo simulation")
	t.sentinel.addFlags(fs)
}

// check validates the flags and reads the password.
func (t *target) check(e env) error {
	switch {
	case t.redis.Timeout <= 0:
		return usageErrorf("--timeout must be positive")
	case t.redis.DB < 0:
		return usageErrorf("--db must not be negative")
	case t.namespace == "":
		return usageErrorf("--namespace must not be empty")
	}
	switch {
	case t.passwordFile != "":
		b, err := os.ReadFile(t.passwordFile)
		if err != nil {
			return localErrorf("read --password-file: %w", err)
		}
		t.redis.Password = strings.TrimRight(string(b), "\r\n")
	case e.getenv("REDIS_PASSWORD") != "":
		t.redis.Password = e.getenv("REDIS_PASSWORD")
	}
	return t.sentinel.check(e, t.redis.ReadOnly, t.demo)
}

// address is where the command connects, as shown ("" before open).
func (t *target) address() string { return t.endpoint }

// open builds the Redis dialer. With --demo it first starts the embedded
// Redis and the simulation and points the dialer at it; stop ends them. It
// does not connect yet: the first command sent does.
func (t *target) open(ctx context.Context) (*redisq.Dialer, func(), error) {
	stop := func() {}
	if t.demo {
		srv, err := demo.Start(ctx, demo.Options{Namespace: t.namespace, Seed: t.demoSeed})
		if err != nil {
			return nil, nil, localErrorf("start demo: %w", err)
		}
		t.redis.Address = srv.Addr()
		t.redis.Password = ""
		t.redis.TLS, t.redis.TLSCAFile, t.redis.TLSSkipVerify = false, "", false
		stop = srv.Stop
	}
	d, err := redisq.NewDialer(t.redis)
	if err == nil && t.sentinel.enabled() {
		d, stop, err = t.sentinel.open(ctx, d)
	}
	if err != nil {
		stop()
		return nil, nil, err
	}
	t.endpoint = d.Endpoint().String()
	return d, stop, nil
}

// dial connects once; done closes the connection (and stops the demo).
func (t *target) dial(ctx context.Context) (redis.Conn, func(), error) {
	d, stop, err := t.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	conn, err := d.Dial(ctx)
	if err != nil {
		stop()
		return nil, nil, err
	}
	return conn, func() { conn.Close(); stop() }, nil
}

// refuseWrite refuses a command that writes to Redis under --read-only,
// before connecting. A dry run is let through: it only reads, and its
// connection refuses writes anyway.
func (t *target) refuseWrite(name string, dryRun bool) error {
	if !t.redis.ReadOnly || dryRun {
		return nil
	}
	return fmt.Errorf("%s writes to Redis and is refused with --read-only (add --dry-run to see its plan)", name)
}
