package reliability_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// writeCA writes a throw-away CA certificate to dir/name.crt and, when
// issue is set, a server certificate for 127.0.0.1 signed by it.
func writeCA(t *testing.T, dir, name string, issue bool) (caFile, certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(der)
	caFile = filepath.Join(dir, name+".crt")
	writePEM(t, caFile, "CERTIFICATE", der)
	if !issue {
		return caFile, "", ""
	}
	skey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	stmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	sder, err := x509.CreateCertificate(rand.Reader, stmpl, caCert, &skey.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	writePEM(t, certFile, "CERTIFICATE", sder)
	writePEM(t, keyFile, "EC PRIVATE KEY", kder)
	return caFile, certFile, keyFile
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestTLSThroughTheBinary: the built binary reads a TLS-only redis-server
// with rediss:// and --tls-ca; with another CA every command and the
// screen say the certificate is not trusted (one line, exit 1 for
// commands), and nothing is read over an untrusted connection.
func TestTLSThroughTheBinary(t *testing.T) {
	dir := t.TempDir()
	caFile, certFile, keyFile := writeCA(t, dir, "good-ca", true)
	otherCA, _, _ := writeCA(t, dir, "other-ca", false)
	srv := redistest.StartFunc(t, func(port int) []string {
		return []string{"--port", "0", "--tls-port", strconv.Itoa(port), "--tls-cert-file", certFile,
			"--tls-key-file", keyFile, "--tls-ca-cert-file", caFile, "--tls-auth-clients", "no"}
	})
	url := "--redis=rediss://" + srv.Addr()

	if r := runCLI(t, nil, url, "--tls-ca="+caFile, "snapshot", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"pools"`) {
		t.Fatalf("snapshot over TLS: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{"snapshot"}, {"reap", "--all-dead", "--yes"}, {"requeue", "work:jobs:a:p:inprogress", "--yes"}, {"repair-locks", "a", "--yes"}} {
		r := runCLI(t, nil, append([]string{url, "--tls-ca=" + otherCA}, args...)...)
		if r.code != 1 || !strings.Contains(r.stderr, "TLS certificate not trusted") {
			t.Errorf("%v with another CA: exit %d, stderr %q", args, r.code, r.stderr)
		}
		oneLine(t, strings.Join(args, " "), r.stderr)
	}
	s := startTmux(t, 160, 30, nil, url, "--tls-ca="+otherCA, "--read-only", "--interval=250ms")
	s.waitText("certificate not trusted", 10*time.Second)
	s.keys("q")
	s.waitText("EXIT=0", 5*time.Second)
}
