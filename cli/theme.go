package cli

import (
	"strconv"
	"strings"

	"github.com/muesli/termenv"
)

// The values of --theme.
const (
	themeAuto  = "auto"
	themeLight = "light"
	themeDark  = "dark"
)

// darkBackground says whether the screen draws for a dark background.
//
// auto never asks the terminal. Asking (OSC 11) means either waiting for
// the answer before the first frame, up to seconds on a terminal that never
// answers, or letting a late answer arrive while the screen reads keys,
// where it would be taken for key presses ("]11;rgb:..." holds r, g, b and
// digits). So auto reads COLORFGBG ("fg;bg", set by rxvt, Konsole and
// others) and otherwise assumes a dark background, the common case and
// termenv's own fallback; --theme light is the answer for the rest.
func darkBackground(theme string, getenv func(string) string) (bool, error) {
	switch theme {
	case themeDark:
		return true, nil
	case themeLight:
		return false, nil
	case themeAuto:
		bg, ok := colorfgbgBackground(getenv("COLORFGBG"))
		if !ok {
			return true, nil
		}
		_, _, l := termenv.ConvertToRGB(termenv.ANSIColor(bg)).Hsl()
		return l < 0.5, nil
	}
	return false, usageErrorf("--theme must be auto, light or dark, not %q", theme)
}

// colorfgbgBackground is the background colour of a COLORFGBG value ("fg;bg"
// or "fg;default;bg"), an ANSI colour 0..15; ok is false when the value is
// missing or holds something else.
func colorfgbgBackground(v string) (bg int, ok bool) {
	fgbg := strings.Split(v, ";")
	if len(fgbg) < 2 {
		return 0, false
	}
	bg, err := strconv.Atoi(fgbg[len(fgbg)-1])
	if err != nil || bg < 0 || bg > 15 {
		return 0, false
	}
	return bg, true
}
