package exporter

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
)

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

// DescribeTo sends the exporter's metric descriptions.
func DescribeTo(e *Exporter, ch chan<- *prometheus.Desc) { collector{e}.Describe(ch) }
