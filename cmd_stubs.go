package main

// Commands still being built. Each moves to its own file when it lands.

import (
	"errors"
)

var errNotBuilt = errors.New("not built yet")
