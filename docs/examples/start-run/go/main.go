// Start a run and wait for its result, with the client OpenAPI Generator makes for Go (docs/api.md).
//
// Run it with SVC_BASE_URL, SVC_API_KEY and SVC_WORKFLOW_ID set, the client generated into ./svcclient.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"

	svc "example.com/acme/svcclient"
)

func main() {
	client := svc.NewAPIClient(svc.NewConfiguration())
	ctx := context.WithValue(context.Background(), svc.ContextAccessToken, os.Getenv("SVC_API_KEY"))
	ctx = context.WithValue(ctx, svc.ContextServerVariables, map[string]string{"base_url": os.Getenv("SVC_BASE_URL")})

	body := svc.NewStartRunRequest(map[string]interface{}{"name": "Ada"})
	body.SetWait(true) // hold the answer until the run settles or 25 s pass
	// The same Idempotency-Key and body within 24 h returns the same run: retrying is safe.
	run, _, err := client.RunsAPI.StartRun(ctx, os.Getenv("SVC_WORKFLOW_ID")).
		IdempotencyKey("greet-ada-1").
		StartRunRequest(*body).
		Execute()
	var apiErr *svc.GenericOpenAPIError
	if errors.As(err, &apiErr) {
		if problem, ok := apiErr.Model().(svc.Problem); ok { // its type links to the page explaining the code
			log.Fatalf("%s: %s (%s)", problem.GetCode(), problem.GetDetail(), problem.GetType())
		}
	}
	if err != nil {
		log.Fatal(err)
	}
	output, _ := json.Marshal(run.GetOutput())
	fmt.Println(run.GetStatus(), string(output))
}
