package model

import "testing"

// benchDeadJob is a dead job as gocraft/work's worker writes it.
const benchDeadJob = `{"name":"send_welcome_mail","id":"5f1b2c3d4e5f6a7b8c9d0e1f","t":1700000000,"args":{"account_id":100042,"email":"user42@example.com","template":"welcome_v2"},"fails":4,"err":"dial tcp 10.0.42.42:25: i/o timeout","failed_at":1700000600}`

// BenchmarkParseSetJob reads one typical dead member with its score, as a
// page and the bulk plans' scans read every member.
func BenchmarkParseSetJob(b *testing.B) {
	raw := []byte(benchDeadJob)
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		sj := ParseSetJob(SetDead, raw, "1700000600")
		if sj.Job == nil || sj.Problem != "" {
			b.Fatalf("%+v", sj)
		}
	}
}

// BenchmarkParseJob reads the same job as an item of a list.
func BenchmarkParseJob(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if j := ParseJob(benchDeadJob); j.ParseErr != nil {
			b.Fatal(j.ParseErr)
		}
	}
}

// BenchmarkScanObject walks the members of the same job, validating it,
// without reading its fields.
func BenchmarkScanObject(b *testing.B) {
	raw := []byte(benchDeadJob)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		s := newObjectScan(raw)
		var m member
		for s.next(&m) {
		}
		if s.state != scanDone {
			b.Fatal(s.state)
		}
	}
}
