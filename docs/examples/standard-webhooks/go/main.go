// A webhook receiver in Go that verifies svc deliveries with the official Standard Webhooks
// library. Executed by test/webhooks.standard.test.ts.
//
//	SVC_WEBHOOK_SECRET=whsec_… PORT=3000 go run .   (put TLS in front of it)
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

func main() {
	// The endpoint secret, whsec_… as shown.
	wh, err := standardwebhooks.NewWebhook(os.Getenv("SVC_WEBHOOK_SECRET"))
	if err != nil {
		log.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]bool{} // use a database in production: deliveries can repeat, dedupe on the event id

	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		raw, err := io.ReadAll(r.Body) // the raw body, byte for byte
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		// Checks webhook-signature (any of its v1 signatures) and that webhook-timestamp is within 5 minutes.
		if err := wh.Verify(raw, r.Header); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var event struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		}
		if err := json.Unmarshal(raw, &event); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		mu.Lock()
		first := !seen[r.Header.Get("webhook-id")]
		seen[r.Header.Get("webhook-id")] = true
		mu.Unlock()
		if first {
			fmt.Println(event.Type, event.ID) // handle it (quickly: answer 2xx within 15 s)
		}
		w.WriteHeader(http.StatusNoContent)
	})

	port := os.Getenv("PORT")
	if port == "" {
		port = "3000"
	}
	listener, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on %d\n", listener.Addr().(*net.TCPAddr).Port)
	log.Fatal(http.Serve(listener, nil))
}
