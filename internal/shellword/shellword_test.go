package shellword

import (
	"os/exec"
	"strings"
	"testing"
)

// Each quoted word, given to a real bash and zsh as printf's argument,
// comes back byte for byte; the quoted line holds no control character.
func TestQuoteRoundTripsThroughShells(t *testing.T) {
	words := []string{
		"send_email", "--all-dead", "-t", "a b", "it's", "x\ny", "tab\there", "\x1b]0;title\x07",
		"$(touch pwned)", "`id`", "a\\b", "\\'", "=ls", "~root", "*", "bidi\u202eevil", "c1\u009b31m",
		"bad\xffutf8", "日本語", "emoji😀", "a'b\nc'd", "", "\\x41", "!event", "{a,b}", "#hash",
	}
	for _, shell := range []string{"bash", "zsh", "sh"} {
		if _, err := exec.LookPath(shell); err != nil {
			t.Fatalf("%s is not installed: apt-get install -y %s", shell, shell)
		}
		for _, w := range words {
			q := Quote(w)
			if strings.ContainsAny(q, "\n\r\t\x1b\x07") {
				t.Errorf("Quote(%q) = %q: a control character reaches the line", w, q)
			}
			if shell == "sh" && strings.HasPrefix(q, "$'") {
				continue // ANSI-C quotes are bash's and zsh's
			}
			out, err := exec.Command(shell, "-c", "printf %s "+q).Output()
			if err != nil {
				t.Fatalf("%s: printf %s: %v", shell, q, err)
			}
			if string(out) != w {
				t.Errorf("%s: Quote(%q) = %s reads back as %q", shell, w, q, out)
			}
		}
	}
}

func TestOperandsAndFlag(t *testing.T) {
	if got := strings.Join(Operands("a", "b"), " "); got != "a b" {
		t.Errorf("plain operands: %q", got)
	}
	if got := strings.Join(Operands("a", "--all-dead"), " "); got != "-- a --all-dead" {
		t.Errorf("an operand that reads as a flag: %q", got)
	}
	if got := strings.Join(Flag("job", "mail"), " "); got != "--job mail" {
		t.Errorf("Flag: %q", got)
	}
	if got := strings.Join(Flag("job", "--redis=x"), " "); got != "--job=--redis=x" {
		t.Errorf("Flag of a dash value: %q", got)
	}
	if Quotable("a\x00b") || !Quotable("a\nb") {
		t.Error("Quotable")
	}
}
