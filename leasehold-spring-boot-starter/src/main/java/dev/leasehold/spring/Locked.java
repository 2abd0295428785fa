package dev.leasehold.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method of a Spring bean while holding a distributed lock of the application's
 * {@link dev.leasehold.LockClient}, as {@link dev.leasehold.DistributedLock#call} does: acquire
 * (waiting up to {@link #waitFor()}), run the method with the lease bound to the thread as
 * {@link dev.leasehold.Lease#current()}, release.
 *
 * <pre>{@code
 * @Locked(name = "'order:' + #id", waitFor = "5s")
 * public Receipt pay(long id, Money amount) {
 *     long token = Lease.current().token();       // pass it with every write; a guard checks it
 *     return payments.charge(id, amount, token);
 * }
 * }</pre>
 *
 * <ul>
 *   <li><b>The lease</b> is reachable from the method as {@code Lease.current()} (on the thread that
 *   runs the method; threads it starts do not inherit it), or as a parameter of type
 *   {@link dev.leasehold.Lease}, which the call fills in whatever the caller passed (pass
 *   {@code null}).</li>
 *   <li><b>Errors surface unchanged:</b> {@link dev.leasehold.LockTimeoutException} when the wait
 *   elapsed (the method did not run), {@link dev.leasehold.LockUnavailableException} when the backend
 *   cannot be reached, the method's own exceptions as thrown. When the lease is lost while the method
 *   runs, the thread is interrupted and the call throws {@link dev.leasehold.LeaseLostException}, as
 *   {@code DistributedLock.call} documents.</li>
 *   <li><b>Checked at startup:</b> a malformed duration, a {@link #name()} that is not SpEL or refers
 *   to a variable the method does not have, two {@code Lease} parameters, a method a proxy cannot
 *   intercept (private, final or static: it would run without the lock), or one that returns a
 *   {@code Future}, {@code CompletionStage} or reactive {@code Publisher} (its work would go on after
 *   the lock was released; an {@code @Async} method returning a {@code Future} is the exception, below)
 *   fail the creation of the bean, with a message naming the method and the attribute.</li>
 *   <li><b>{@code @Async}:</b> the lock is taken on the executor's thread, around the method's body,
 *   with {@code Lease.current()} bound there; calls made at once run their bodies one at a time. A
 *   {@code CompletableFuture} (any {@code Future}) the method returns keeps the lock until it is done.
 *   A lock that cannot be had then fails the returned future (or, for a {@code void} method, goes to
 *   Spring's {@code AsyncUncaughtExceptionHandler}). This holds for {@code @EnableAsync}'s default
 *   proxy mode; in AspectJ mode the body is handed to the executor inside the method itself, outside
 *   any proxy advice, so do not combine the two there.</li>
 *   <li><b>Not reentrant:</b> a {@code @Locked} method that calls another one on the same lock name
 *   waits for itself until its wait elapses. Calls from inside the same object bypass the Spring
 *   proxy and take no lock, as with {@code @Transactional}.</li>
 *   <li><b>Order:</b> the lock is taken outside every other advice of the bean but {@code @Async}'s
 *   (a transaction starts after the lock is held and commits before it is released).</li>
 * </ul>
 *
 * <p>Durations are written as Spring Boot properties are: {@code 500ms}, {@code 5s}, {@code 2m},
 * {@code 1h}, {@code 0}, or ISO-8601 ({@code PT5S}); {@code ${...}} placeholders are resolved.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Locked {

    /**
     * The lock name, a SpEL expression evaluated for each call, e.g. {@code "'order:' + #id"}. The
     * method's parameters are variables by name ({@code #id}; compile with {@code -parameters}, as
     * Spring Boot's build plugins do) and by position ({@code #p0}, {@code #a0}); {@code #root.method}
     * and {@code #root.target} are the method and the bean; {@code @name} refers to a bean. A constant
     * name is a string literal: {@code "'nightly-report'"}. A call whose name evaluates to null or
     * blank, or that joins a null value (an argument, {@code #order.id}) into the name with {@code +} ({@code "'order:' + #id"}
     * with a null {@code id}, which SpEL would write as {@code order:null}), throws
     * {@link IllegalArgumentException} without running the method; {@code (#id ?: 'none')} names
     * that case on purpose.
     */
    String name();

    /**
     * How long to wait for the lock; {@code "0"} tries once. Empty: {@code leasehold.locked.default-wait}
     * (30 s unless set). At most 30 days. (Named {@code waitFor}, since an annotation cannot have a
     * member {@code wait}: {@link Object#wait()} is final.)
     */
    String waitFor() default "";

    /**
     * The watchdog ttl of the lease: the server keeps the lock this long after this client last
     * renewed it (every ttl/3 while the method runs), so a crashed holder frees it within the ttl.
     * Empty: {@code leasehold.locked.default-ttl} (30 s unless set). Between 10 ms and 1 day.
     */
    String ttl() default "";

    /** Which lock: an exclusive {@link LockKind#MUTEX} unless said otherwise. */
    LockKind kind() default LockKind.MUTEX;
}
