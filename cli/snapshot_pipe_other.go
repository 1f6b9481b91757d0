//go:build !linux

package cli

import "io"

// widenPipe does nothing where pipe buffers cannot be resized.
func widenPipe(io.Writer) {}
