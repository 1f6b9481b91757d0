package model

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestEditForRequeueKeepsEveryOtherByte(t *testing.T) {
	tests := []struct {
		name, raw   string
		dropFailure bool
		want        string
	}{
		{"dead job written by Go",
			`{"name":"mail","id":"a1","t":1700000000,"args":{"n":12345678901234567,"l":[],"u":"a/b","e":"\u003c"},"fails":3,"err":"boom","failed_at":1700000100}`, true,
			`{"name":"mail","id":"a1","t":42,"args":{"n":12345678901234567,"l":[],"u":"a/b","e":"\u003c"}}`},
		{"retry keeps the failure",
			`{"name":"mail","id":"a1","t":1700000000,"args":null,"fails":1,"err":"x","failed_at":5}`, false,
			`{"name":"mail","id":"a1","t":42,"args":null,"fails":1,"err":"x","failed_at":5}`},
		{"cjson order, failure fields first",
			`{"fails":2,"err":"e","args":{"z":1,"a":2},"t":7,"id":"b","name":"x\/y","failed_at":1}`, true,
			`{"args":{"z":1,"a":2},"t":42,"id":"b","name":"x\/y"}`},
		{"whitespace and no t",
			"{ \"id\" : \"c\" ,\n \"err\":\"e\" }", true,
			"{ \"id\" : \"c\",\"t\":42 }"},
		{"escaped key names t", `{"\u0074":1,"id":"d"}`, false, `{"\u0074":42,"id":"d"}`},
		{"empty object", `{}`, true, `{"t":42}`},
		{"strings holding braces", `{"args":{"s":"}{\"t\":1"},"t":3}`, true, `{"args":{"s":"}{\"t\":1"},"t":42}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := EditForRequeue([]byte(tt.raw), tt.dropFailure)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(e.Before) + "42" + string(e.After); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			// Appended behind other bytes, with t written in: the same
			// job, and the edit's halves around t in what was appended.
			out, a, err := AppendRequeued([]byte("prefix"), []byte(tt.raw), tt.dropFailure, "42")
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != "prefix"+tt.want || string(a.Before) != string(e.Before) || string(a.After) != string(e.After) {
				t.Fatalf("appended %s (before %s, after %s), want prefix%s", out, a.Before, a.After, tt.want)
			}
		})
	}
}

func TestEditForRequeueRefuses(t *testing.T) {
	for _, raw := range []string{`not json`, `[1]`, `{"t":1,"t":2}`, `"s"`} {
		if _, err := EditForRequeue([]byte(raw), true); !errors.Is(err, ErrNotEditable) {
			t.Errorf("%s: err = %v, want ErrNotEditable", raw, err)
		}
		if out, _, err := AppendRequeued([]byte("prefix"), []byte(raw), true, "42"); !errors.Is(err, ErrNotEditable) || string(out) != "prefix" {
			t.Errorf("%s: appended %q, err = %v, want the buffer as it was and ErrNotEditable", raw, out, err)
		}
	}
}

func TestParseSetJobKeepsBadMembers(t *testing.T) {
	sj := ParseSetJob(SetDead, []byte("\x1b[31mnot json"), "1700000000.5")
	if sj.Job != nil || sj.Problem == "" || sj.Score != 1700000000.5 || string(sj.Raw) != "\x1b[31mnot json" {
		t.Fatalf("got %+v", sj)
	}
	b, err := json.Marshal(sj)
	if err != nil || !strings.Contains(string(b), `"died_at":1700000000.5`) || !strings.Contains(string(b), `"raw":`) {
		t.Fatalf("json %s %v", b, err)
	}
	sj = ParseSetJob(SetRetry, []byte(`{"id":"x","name":"n","t":"late","args":{"n":12345678901234567},"fails":1}`), "5")
	if sj.Job == nil || sj.Job.ID != "x" || sj.Job.Fails != 1 || !strings.Contains(sj.Problem, "t") {
		t.Fatalf("got %+v %+v", sj, sj.Job)
	}
	b, _ = json.Marshal(sj)
	if !strings.Contains(string(b), `"args":{"n":12345678901234567}`) || !strings.HasPrefix(string(b), `{"retry_at":5,`) {
		t.Fatalf("json %s", b)
	}
	sj = ParseSetJob(SetScheduled, []byte(`{"id":"y"}`), "inf")
	if b, err := json.Marshal(sj); err != nil || !strings.Contains(string(b), `"run_at":"inf"`) {
		t.Fatalf("json %s %v", b, err)
	}
}

func TestUniqueKeyIn(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`{"name":"n","id":"1","args":{"b":1,"a":"<x>"},"unique":true}`, "work:unique:n:{\"a\":\"\\u003cx\\u003e\",\"b\":1}\n"},
		{`{"name":"n","id":"1","args":null,"unique":true}`, "work:unique:n:"},
		{`{"name":"n","id":"1","args":{},"unique":true}`, "work:unique:n:{}\n"},
		{`{"name":"n","id":"1","args":{"n":12345678901234567},"unique":true}`, "work:unique:n:{\"n\":12345678901234568}\n"},
		{`{"name":"n","id":"1","args":{},"unique":true,"unique_key":"k"}`, "k"},
	}
	for _, tt := range tests {
		j, _ := ParseJobFields([]byte(tt.raw))
		got, ok, err := j.UniqueKeyIn("work:")
		if err != nil || !ok || got != tt.want {
			t.Errorf("%s: got %q %v %v, want %q", tt.raw, got, ok, err, tt.want)
		}
	}
	j, _ := ParseJobFields([]byte(`{"name":"n","id":"1","args":{}}`))
	if _, ok, _ := j.UniqueKeyIn("work:"); ok {
		t.Error("a job that is not unique has a unique key")
	}
}

func TestNormalizeError(t *testing.T) {
	tests := []struct{ in, want string }{
		{"dial tcp 10.0.0.12:5432: connection refused", "dial tcp N.N.N.N:N: connection refused"},
		{"user 5f1b2c3d4e5f6a7b8c9d0e1f not found", "user <id> not found"},
		{"order 0xdeadbeef failed after 3  tries", "order <id> failed after N tries"},
		{"job_17 failed", "job_N failed"},
		{"deadbeefcafe", "deadbeefcafe"},
		{"args are not valid UTF-8 at byte 17", "args are not valid UTF-8 at byte N"},
		{"SHA-256 of job-1234 differs (UTF-16)", "SHA-256 of job-N differs (UTF-16)"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := NormalizeError(tt.in); got != tt.want {
			t.Errorf("NormalizeError(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if n := len(NormalizeError(strings.Repeat("é", 500))); n > 200 {
		t.Errorf("long error kept %d bytes", n)
	}
}

// A score reads as strconv.ParseFloat reads it, to the bit.
func TestSetJobScoreAsParseFloat(t *testing.T) {
	for _, s := range []string{"0", "-0", "17", "-17", "1700000000", "007", "+5", "1.5", "1e3", "inf", "-inf", "nan", "x", "",
		"9007199254740993", "123456789012345678", "999999999999999999", "1234567890123456789", "-9007199254740993"} {
		want, err := strconv.ParseFloat(s, 64)
		for _, sj := range append(ParseSetJobs(SetDead, [][]byte{[]byte("{}"), []byte(s)}), ParseSetJob(SetDead, []byte("{}"), s)) {
			if math.Float64bits(sj.Score) != math.Float64bits(want) || (sj.Problem != "") != (err != nil) || sj.ScoreText != s {
				t.Errorf("score %q: %v (%q), want %v (%v)", s, sj.Score, sj.Problem, want, err)
			}
		}
	}
}
