/**
 * JUnit 5 plumbing every module's tests share: real servers as an extension
 * ({@link dev.leasehold.testkit.junit.TestServer}) and waiting for a condition
 * ({@link dev.leasehold.testkit.junit.Eventually}).
 */
package dev.leasehold.testkit.junit;
