package model

import "testing"

// A bulk requeue edits each of its jobs once: the edit's bytes are its one
// allocation (the members of the object are listed on the stack), so that
// 10,000 jobs do not leave 10,000 lists of members behind as garbage.
func TestEditForRequeueAllocatesOnce(t *testing.T) {
	raw := []byte(`{"name":"charge_card","id":"0a580c11db8edbf66652d137","t":1764644631,"args":{"amount":100,"order_id":"ord_289000"},"fails":4,"err":"charge: gateway timeout","failed_at":1764644931}`)
	var edit RequeueEdit
	n := testing.AllocsPerRun(100, func() {
		var err error
		if edit, err = EditForRequeue(raw, true); err != nil {
			t.Fatal(err)
		}
	})
	if n != 1 {
		t.Fatalf("EditForRequeue allocates %v times a job, want 1", n)
	}
	if got := string(edit.Before) + "7" + string(edit.After); got != `{"name":"charge_card","id":"0a580c11db8edbf66652d137","t":7,"args":{"amount":100,"order_id":"ord_289000"}}` {
		t.Fatalf("edit: %s", got)
	}
}
