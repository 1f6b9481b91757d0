package redistest

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
	"testing"
	"time"
)

// TLSFiles are the PEM files of a throw-away certificate authority and of a
// server certificate for 127.0.0.1 that it signed.
type TLSFiles struct {
	CAFile, CertFile, KeyFile string
}

// StartTLS starts a redis-server that speaks TLS only, on a free port, with
// a certificate signed by a fresh CA; the CA's file is in the result.
func StartTLS(t testing.TB) (*Server, TLSFiles) {
	t.Helper()
	files := WriteCA(t, t.TempDir(), "workq-tui test CA", true)
	srv := StartFunc(t, func(port int) []string {
		return []string{
			"--port", "0", "--tls-port", strconv.Itoa(port),
			"--tls-cert-file", files.CertFile, "--tls-key-file", files.KeyFile,
			"--tls-ca-cert-file", files.CAFile, "--tls-auth-clients", "no",
		}
	})
	return srv, files
}

// WriteCA writes a throw-away CA certificate to dir/<name>.crt and, when
// issue is set, a server certificate for 127.0.0.1 signed by it with its key.
func WriteCA(t testing.TB, dir, name string, issue bool) TLSFiles {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	files := TLSFiles{CAFile: filepath.Join(dir, name+".crt")}
	writePEM(t, files.CAFile, "CERTIFICATE", der)
	if !issue {
		return files
	}
	skey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	stmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	sder, err := x509.CreateCertificate(rand.Reader, stmpl, ca, &skey.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	files.CertFile, files.KeyFile = filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	writePEM(t, files.CertFile, "CERTIFICATE", sder)
	writePEM(t, files.KeyFile, "EC PRIVATE KEY", kder)
	return files
}

func writePEM(t testing.TB, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
