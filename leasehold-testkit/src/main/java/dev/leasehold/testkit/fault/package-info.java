/**
 * Network fault injection between a client and a real server: a loopback TCP proxy whose
 * behaviour (latency, black hole, held replies, cut connections, refused connections) can be
 * switched while connections are open.
 */
package dev.leasehold.testkit.fault;
