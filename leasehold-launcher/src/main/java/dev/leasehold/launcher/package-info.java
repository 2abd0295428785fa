/**
 * Real {@code redis-server} processes for tests: locating a binary, free loopback ports,
 * starting, killing, pausing and restarting servers, TLS material, and a minimal RESP
 * client to talk to them without depending on the code under test.
 *
 * <p>Every process and directory created here is registered with a JVM-wide reaper, so a test
 * that fails before closing its server leaves no {@code redis-server} and no files behind
 * when the JVM exits.
 */
package dev.leasehold.launcher;
