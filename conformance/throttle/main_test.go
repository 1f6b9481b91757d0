package throttle_test

import (
	"os"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestMain removes the workq-tui binary the tests build (redistest.Binary).
func TestMain(m *testing.M) { os.Exit(redistest.Main(m)) }
