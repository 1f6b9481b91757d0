package model

import (
	"errors"
	"testing"
)

// TestExpandSaved: @NAME stands for its saved query, alone or among terms;
// an unknown name lists the known ones.
func TestExpandSaved(t *testing.T) {
	saved := map[string]string{"outage": `job:charge_card err~"gateway" since:1h`, "mail": "job:send_*"}
	got, err := ExpandSaved("@outage fails>=3", saved, "c.toml")
	if err != nil || got != `job:charge_card err~"gateway" since:1h fails>=3` {
		t.Fatalf("got %q, %v", got, err)
	}
	if got, err := ExpandSaved("args:x@y err:'a @b'", saved, "c.toml"); err != nil || got != "args:x@y err:'a @b'" {
		t.Errorf("an @ inside a value is expanded: %q %v", got, err)
	}
	_, err = ExpandSaved("@outgae", saved, "c.toml")
	if !errors.Is(err, ErrBadQuery) || err.Error() != `bad query: unknown saved query "@outgae": the saved ones are @mail, @outage (c.toml)` {
		t.Errorf("unknown: %v", err)
	}
	_, err = ExpandSaved("@x", nil, "")
	if err == nil || err.Error() != `bad query: unknown saved query "@x": the configuration file has no [queries]` {
		t.Errorf("none: %v", err)
	}
}
