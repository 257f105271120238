package mgmt

import "testing"

// TestResourcePermissions checks that the management API enforces the same
// configure/write/read permissions as AMQP, answering a refusal as RabbitMQ
// 3.10.8 does (401 "Access refused.", observed with curl), and a missing
// queue, exchange or binding with 404 before any permission check.
func TestResourcePermissions(t *testing.T) {
	const refused = `{"error":"not_authorised","reason":"Access refused."}`
	const notFound = `{"error":"Object Not Found","reason":"Not Found"}`
	cases := []struct {
		name                   string
		configure, write, read string
		method, path, body     string
		status                 int
		want                   string // the error body; "" for success
	}{
		{"declare queue", "^$", ".*", ".*", "PUT", "/api/queues/%2F/mgr.q", `{}`, 401, refused},
		{"declare queue allowed", `^mgr\.`, "^$", "^$", "PUT", "/api/queues/%2F/mgr.q", `{}`, 201, ""},
		{"redeclare guest's queue", "^mgr", ".*", ".*", "PUT", "/api/queues/%2F/q", `{}`, 401, refused},
		{"declare queue with DLX, no read", ".*", ".*", "^$", "PUT", "/api/queues/%2F/mgr.q", `{"arguments":{"x-dead-letter-exchange":"x"}}`, 401, refused},
		{"declare queue with DLX, no write", ".*", "^$", ".*", "PUT", "/api/queues/%2F/mgr.q", `{"arguments":{"x-dead-letter-exchange":"x"}}`, 401, refused},
		{"declare queue with DLX allowed", ".*", "^x$", "^mgr", "PUT", "/api/queues/%2F/mgr.q", `{"arguments":{"x-dead-letter-exchange":"x"}}`, 201, ""},
		{"delete queue", "^mgr", ".*", ".*", "DELETE", "/api/queues/%2F/q", "", 401, refused},
		{"delete queue allowed", "^q$", "^$", "^$", "DELETE", "/api/queues/%2F/q", "", 204, ""},
		{"delete missing queue", "^$", "^$", "^$", "DELETE", "/api/queues/%2F/nope", "", 404, notFound},
		{"purge", ".*", ".*", "^mgr", "DELETE", "/api/queues/%2F/q/contents", "", 401, refused},
		{"purge allowed", "^$", "^$", "^q$", "DELETE", "/api/queues/%2F/q/contents", "", 204, ""},
		{"purge missing queue", "^$", "^$", "^$", "DELETE", "/api/queues/%2F/nope/contents", "", 404, notFound},
		{"declare exchange", "^mgr", ".*", ".*", "PUT", "/api/exchanges/%2F/x2", `{"type":"direct"}`, 401, refused},
		{"declare exchange allowed", "^x2$", "^$", "^$", "PUT", "/api/exchanges/%2F/x2", `{"type":"direct"}`, 201, ""},
		{"delete exchange", "^mgr", ".*", ".*", "DELETE", "/api/exchanges/%2F/x", "", 401, refused},
		{"delete missing exchange", "^$", "^$", "^$", "DELETE", "/api/exchanges/%2F/nope", "", 404, notFound},
		{"bind, no write on the queue", ".*", "^mgr", ".*", "POST", "/api/bindings/%2F/e/x/q/q", `{"routing_key":"k2"}`, 401, refused},
		{"bind, no read on the exchange", ".*", ".*", "^mgr", "POST", "/api/bindings/%2F/e/x/q/q", `{"routing_key":"k2"}`, 401, refused},
		{"bind allowed", "^$", "^q$", "^x$", "POST", "/api/bindings/%2F/e/x/q/q", `{"routing_key":"k2"}`, 201, ""},
		{"bind a missing queue", "^$", "^$", "^$", "POST", "/api/bindings/%2F/e/x/q/nope", `{"routing_key":"k2"}`, 401, refused},
		{"exchange to exchange", ".*", "^mgr", ".*", "POST", "/api/bindings/%2F/e/x/e/amq.fanout", `{"routing_key":"k2"}`, 401, refused},
		{"unbind", "^$", "^$", "^$", "DELETE", "/api/bindings/%2F/e/x/q/q/k", "", 401, refused},
		{"unbind allowed", "^$", "^q$", "^x$", "DELETE", "/api/bindings/%2F/e/x/q/q/k", "", 204, ""},
		{"unbind a missing binding", "^$", "^$", "^$", "DELETE", "/api/bindings/%2F/e/x/q/q/nokey", "", 404, notFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.must(201, "PUT", "/api/queues/%2F/q", `{}`)
			f.must(201, "PUT", "/api/exchanges/%2F/x", `{"type":"direct"}`)
			f.must(201, "POST", "/api/bindings/%2F/e/x/q/q", `{"routing_key":"k"}`)
			f.publish("/", "q", "guest's")
			if err := f.users.AddUser("mgr", "pw", []string{"management"}); err != nil {
				t.Fatal(err)
			}
			if err := f.users.SetPermissions("mgr", "/", tc.configure, tc.write, tc.read); err != nil {
				t.Fatal(err)
			}
			r := f.as("mgr", "pw", tc.method, tc.path, tc.body)
			if tc.want == "" {
				if r.status != tc.status {
					t.Fatalf("status %d, want %d; body %s", r.status, tc.status, r.body)
				}
				return
			}
			f.wantError(r, tc.status, tc.want)
			if got := f.readyBodies("/", "q"); len(got) != 1 {
				t.Errorf("guest's queue holds %v after a refused request", got)
			}
		})
	}
}
