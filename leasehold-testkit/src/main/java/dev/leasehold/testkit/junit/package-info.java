/**
 * JUnit 5 plumbing every module's tests share: real servers as an extension
 * ({@link dev.leasehold.testkit.junit.TestServer}; {@link dev.leasehold.testkit.junit.FlushedRedis}
 * for Redis script tests, with a connection and an empty server per test) and waiting for a condition
 * ({@link dev.leasehold.testkit.junit.Eventually}).
 */
package dev.leasehold.testkit.junit;
