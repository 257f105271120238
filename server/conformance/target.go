package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// target is one broker under test: its AMQP URL and its management API.
type target struct {
	name    string // "warren" or "rabbitmq"
	amqpURL string
	apiURL  string // http://host:port, without /api
	user    string
	pass    string
}

// dialTimeout bounds connecting; RabbitMQ and Warren both answer at once
// on loopback.
const dialTimeout = 5 * time.Second

// dial opens a connection as the target's user; when tapped, the server's
// methods are recorded.
func (t *target) dial(tapped bool) (*amqp.Connection, *tap, error) {
	return t.dialURL(t.amqpURL, tapped)
}

// dialAs opens a connection as another user of the default vhost.
func (t *target) dialAs(user, pass string, tapped bool) (*amqp.Connection, *tap, error) {
	u, err := url.Parse(t.amqpURL)
	if err != nil {
		return nil, nil, err
	}
	u.User = url.UserPassword(user, pass)
	return t.dialURL(u.String(), tapped)
}

func (t *target) dialURL(amqpURL string, tapped bool) (*amqp.Connection, *tap, error) {
	var tp *tap
	cfg := amqp.Config{
		Heartbeat: 10 * time.Second,
		Locale:    "en_US",
		Dial: func(network, addr string) (net.Conn, error) {
			c, err := net.DialTimeout(network, addr, dialTimeout)
			if err != nil {
				return nil, err
			}
			if tapped {
				tp = newTap(c)
				return tp, nil
			}
			return c, nil
		},
	}
	c, err := amqp.DialConfig(amqpURL, cfg)
	return c, tp, err
}

// httpTimeout bounds one management API call.
const httpTimeout = 5 * time.Second

// api makes one management API call with a JSON body (nil for none) and
// returns the status and the body.
func (t *target) api(method, path string, body any) (int, string, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, "", err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, t.apiURL+path, r)
	if err != nil {
		return 0, "", err
	}
	req.SetBasicAuth(t.user, t.pass)
	req.Header.Set("Content-Type", "application/json")
	client := http.Client{Timeout: httpTimeout}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, string(b), nil
}

// policyPath is the management API path of a policy in the default vhost.
func policyPath(name string) string { return "/api/policies/%2F/" + url.PathEscape(name) }

// version asks the broker for its product and version, from the
// connection.start server properties.
func (t *target) version() string {
	c, _, err := t.dial(false)
	if err != nil {
		return "unreachable: " + err.Error()
	}
	defer c.Close()
	return fmt.Sprintf("%v %v", c.Properties["product"], c.Properties["version"])
}
