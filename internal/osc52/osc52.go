// Package osc52 builds the terminal sequence that puts text on the
// clipboard of the terminal the user sits at (OSC 52): it travels through
// ssh, and tmux with set-clipboard on takes it into its buffer and passes
// it on. It only writes: nothing asks the terminal anything.
package osc52

import (
	"encoding/base64"
	"errors"
	"fmt"
)

// MaxEncoded is the most base64 bytes one sequence carries: the cap k9s
// uses (74,994), below what common terminals accept in one sequence.
const MaxEncoded = 74994

// MaxText is the most bytes of text that fit in MaxEncoded.
const MaxText = MaxEncoded / 4 * 3

// ErrTooLong: the text is over MaxText; nothing is sent.
var ErrTooLong = errors.New("too long for the clipboard")

// Sequence is ESC ] 52 ; c ; base64(text) BEL, or ErrTooLong (wrapped
// with the sizes) when text is over MaxText.
func Sequence(text []byte) (string, error) {
	if len(text) > MaxText {
		return "", fmt.Errorf("%d bytes is over the %d a terminal takes through OSC 52: %w", len(text), MaxText, ErrTooLong)
	}
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString(text) + "\a", nil
}
