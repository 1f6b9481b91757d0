// A short way through FailureText for a failed job in the layout
// gocraft/work's worker writes: the first job health read takes an hour of
// deaths, thousands of members, nearly all of them in that layout.

package model

// failureTextLayout reads a failed job written as gocraft/work's worker
// writes it (encoding/json of its Job: no space, the fields in their order,
// name, id and err without escapes, no unique fields):
//
//	{"name":"N","id":"I","t":T,"args":A,"fails":F,"err":"E","failed_at":FA}
//
// fails, err and failed_at may each be absent. It returns what
// FailureText would, the texts being raw's own bytes; handled is false
// for any other text, which FailureText then reads the long way, so that
// nothing but the time spent differs.
func failureTextLayout(raw []byte) (name, errText []byte, failedAt int64, handled bool) {
	b := raw
	i, ok := expect(b, 0, `{"name":"`)
	if !ok {
		return nil, nil, 0, false
	}
	nameStart := i
	if i, ok = plainEnd(b, i); !ok {
		return nil, nil, 0, false
	}
	name = b[nameStart:i:i]
	if i, ok = expect(b, i, `","id":"`); !ok {
		return nil, nil, 0, false
	}
	if i, ok = plainEnd(b, i); !ok {
		return nil, nil, 0, false
	}
	if i, ok = expect(b, i, `","t":`); !ok {
		return nil, nil, 0, false
	}
	if i, ok = scanNumber(b, i); !ok {
		return nil, nil, 0, false
	}
	if i, ok = expect(b, i, `,"args":`); !ok {
		return nil, nil, 0, false
	}
	if i, ok = scanValue(b, i, 2); !ok {
		return nil, nil, 0, false
	}
	if j, found := expect(b, i, `,"fails":`); found {
		if i, ok = scanNumber(b, j); !ok {
			return nil, nil, 0, false
		}
	}
	if j, found := expect(b, i, `,"err":"`); found {
		if i, ok = plainEnd(b, j); !ok {
			return nil, nil, 0, false
		}
		errText = b[j:i:i]
		i++
	}
	if j, found := expect(b, i, `,"failed_at":`); found {
		if i, ok = scanNumber(b, j); !ok {
			return nil, nil, 0, false
		}
		// A number no int64 nor float64 holds leaves failed_at zero, as
		// it does the long way.
		failedAt, _ = jsonSeconds(b[j:i])
	}
	if i != len(b)-1 || b[i] != '}' {
		return nil, nil, 0, false
	}
	return name, errText, failedAt, true
}

// expect returns the offset after lit when b holds it at i.
func expect(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return i, false
}

// plainEnd returns the offset of the closing quote of a string's text
// that starts at i, when that text has no escape and no control
// character.
func plainEnd(b []byte, i int) (int, bool) {
	end := plainRun(b, i)
	return end, end < len(b) && b[end] == '"'
}
