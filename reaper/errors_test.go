package reaper

import (
	"errors"
	"fmt"
	"testing"
)

// Every kind of bad data is ErrBadData too, and a script's reason keeps its
// text and its kind.
func TestBadDataKinds(t *testing.T) {
	for _, tc := range []struct {
		err      error
		kind     error
		text     string
		notKinds []error
	}{
		{fmt.Errorf("requeue k: %w", ErrWrongType), ErrWrongType, "requeue k: key of the wrong type", []error{ErrBadValue}},
		{fmt.Errorf("k holds x: %w", ErrBadValue), ErrBadValue, "k holds x: not an integer", []error{ErrWrongType}},
		{scriptDataError("wrongtype:key q is a hash, want a list"), ErrWrongType, "unexpected data in redis: key q is a hash, want a list", []error{ErrBadValue}},
		{scriptDataError("badvalue:key l holds many, not an integer"), ErrBadValue, "unexpected data in redis: key l holds many, not an integer", []error{ErrWrongType}},
		{scriptDataError("odd"), ErrBadData, "unexpected data in redis: odd", []error{ErrWrongType, ErrBadValue}},
	} {
		if !errors.Is(tc.err, tc.kind) || !errors.Is(tc.err, ErrBadData) {
			t.Errorf("%v: not %v and ErrBadData", tc.err, tc.kind)
		}
		for _, k := range tc.notKinds {
			if errors.Is(tc.err, k) {
				t.Errorf("%v is %v", tc.err, k)
			}
		}
		if tc.err.Error() != tc.text {
			t.Errorf("text %q, want %q", tc.err.Error(), tc.text)
		}
	}
	if errors.Is(ErrBadData, ErrWrongType) {
		t.Error("ErrBadData is ErrWrongType")
	}
}
