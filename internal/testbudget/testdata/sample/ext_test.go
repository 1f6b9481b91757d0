package sample_test

import (
	"testing"

	"github.com/workq-tui/workq-tui/internal/testbudget/testdata/sample"
)

func TestExt(t *testing.T) { _ = sample.Model{}.Open }
