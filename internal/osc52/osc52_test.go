package osc52

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func TestSequence(t *testing.T) {
	s, err := Sequence([]byte("job 1f2e"))
	if err != nil || s != "\x1b]52;c;"+base64.StdEncoding.EncodeToString([]byte("job 1f2e"))+"\a" {
		t.Errorf("%q %v", s, err)
	}
	at := bytes.Repeat([]byte("x"), MaxText)
	s, err = Sequence(at)
	if err != nil || len(s)-len("\x1b]52;c;\a") > MaxEncoded {
		t.Errorf("at the cap: %d encoded bytes, %v", len(s), err)
	}
	_, err = Sequence(append(at, 'x'))
	if !errors.Is(err, ErrTooLong) || strings.Contains(err.Error(), "\n") {
		t.Errorf("over the cap: %v", err)
	}
}
