package exporter

import "context"

// WriteThrough tries a SET and an EVAL on one of the source's connections.
func WriteThrough(r *RedisSource) []error {
	c, err := r.dial(context.Background())
	if err != nil {
		return []error{err}
	}
	defer c.Close()
	_, setErr := c.Do("SET", "exporter-write-probe", "1")
	_, evalErr := c.Do("EVAL", "return redis.call('SET', KEYS[1], '1')", 1, "exporter-write-probe")
	return []error{setErr, evalErr}
}
