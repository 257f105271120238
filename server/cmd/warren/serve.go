package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"warren/engine"
	"warren/server"
	"warren/server/auth"
)

// runServe is `warren serve`: the broker on the wall clock, AMQP on TCP,
// and the HTTP listener (WebSocket AMQP at /amqp and /ws/amqp, the
// management API at /api/). SIGINT or SIGTERM shuts it down gracefully:
// clients get connection.close 320 CONNECTION_FORCED.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warren serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	amqpAddr := fs.String("amqp", "127.0.0.1:5672", "address for AMQP 0-9-1 over TCP")
	httpAddr := fs.String("http", "127.0.0.1:8080", "address for HTTP: AMQP over WebSocket at /amqp, the management API at /api/")
	usersFile := fs.String("users", "", "JSON file of users and permissions (RabbitMQ definitions shape); guest/guest exists by default, loopback only")
	seed := fs.Uint64("seed", 0, "seed for server-chosen names (amq.gen-…)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	users := auth.NewStore()
	if *usersFile != "" {
		if err := users.LoadFile(*usersFile); err != nil {
			fmt.Fprintf(stderr, "warren serve: %v\n", err)
			return 1
		}
	}
	srv, err := server.Start(server.Options{AMQPAddr: *amqpAddr, HTTPAddr: *httpAddr, Users: users, Engine: engine.Config{Seed: *seed}})
	if err != nil {
		fmt.Fprintf(stderr, "warren serve: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "Warren is running.\n  AMQP 0-9-1:        amqp://guest:guest@%s/\n  AMQP over WebSocket: ws://%s/amqp\n  Management API:    http://%s/api/overview (guest/guest)\nPress Ctrl-C to stop.\n",
		srv.AMQPAddr(), srv.HTTPAddr(), srv.HTTPAddr())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	fmt.Fprintln(stdout, "shutting down")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		fmt.Fprintf(stderr, "warren serve: %v\n", err)
		return 1
	}
	return 0
}
