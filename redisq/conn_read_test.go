package redisq

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"net"
	"testing"
	"time"
)

// The socket reader hands out the bytes the socket gave, in order, for reads
// of any size and writes in any pieces, asking the socket for 64 KB at a
// time; and a connection whose read was interrupted hands out nothing more,
// even what it holds.
func TestDeadlineConnReadsInOrder(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewSource(seed))
		client, server := net.Pipe()
		want := make([]byte, 300<<10+r.Intn(100<<10))
		r.Read(want)
		go func() {
			for rest := want; len(rest) > 0; {
				n := min(len(rest), 1+r.Intn(20<<10))
				if _, err := server.Write(rest[:n]); err != nil {
					return
				}
				rest = rest[n:]
			}
			server.Close()
		}()
		sock := &askedConn{Conn: client}
		c := newDeadlineNetConn(sock, 5*time.Second)
		var got bytes.Buffer
		sizes := []int{4096, 4096, 4096, 1, 17, 4096, 70 << 10}
		for i := 0; ; i++ {
			p := make([]byte, sizes[(i+int(seed))%len(sizes)])
			sock.caller = len(p)
			n, err := c.Read(p)
			got.Write(p[:n])
			// A pipe whose other end closed refuses a new deadline.
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("seed %d: read %d bytes, not the %d written in order", seed, got.Len(), len(want))
		}
		if sock.ahead == 0 {
			t.Fatalf("seed %d: the socket was never asked for %d bytes under a smaller read", seed, readBufferSize)
		}
	}

	client, server := net.Pipe()
	go func() { _, _ = server.Write(make([]byte, 20<<10)) }()
	c := newDeadlineNetConn(client, 5*time.Second)
	if _, err := c.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	if c.r.Buffered() == 0 {
		t.Fatal("nothing held back to test with")
	}
	c.interrupted.Store(true)
	if n, err := c.Read(make([]byte, 10)); n != 0 || !errors.Is(err, errInterrupted) {
		t.Fatalf("after an interrupt: %d bytes, %v", n, err)
	}
	server.Close()
}

// askedConn counts the reads of the socket that asked for readBufferSize
// bytes or more while the caller asked for fewer (caller, set before each
// read): the reads ahead.
type askedConn struct {
	net.Conn
	caller, ahead int
}

func (c *askedConn) Read(p []byte) (int, error) {
	if len(p) >= readBufferSize && c.caller < readBufferSize {
		c.ahead++
	}
	return c.Conn.Read(p)
}
