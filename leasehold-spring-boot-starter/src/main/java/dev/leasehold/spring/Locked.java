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
 *   <li><b>Errors:</b> {@link dev.leasehold.LockTimeoutException} when the wait elapsed (the method
 *   did not run; unless {@link #ifLocked()} is {@link IfLocked#SKIP}),
 *   {@link dev.leasehold.LockUnavailableException} when the backend cannot be reached: each thrown on
 *   the caller's thread with a one-line message that names the method and the lock (the transport
 *   error, if any, as its cause). The method's own exceptions surface as thrown. When the lease is
 *   lost while the method runs, the thread is interrupted and the call throws
 *   {@link dev.leasehold.LeaseLostException}, as {@code DistributedLock.call} documents.</li>
 *   <li><b>A job on one machine:</b> with {@code @Scheduled} on every instance of an application,
 *   {@code @Locked(name = "'nightly'", waitFor = "0", ifLocked = SKIP, holdAtLeast = "1m")} runs the job
 *   once per period: the instances that lose skip quietly, and {@link #holdAtLeast()} keeps the lock
 *   past a quick run so that an instance whose clock fires a moment later finds it still held.</li>
 *   <li><b>Checked at startup:</b> a malformed or out-of-range duration, a {@link #kind()} and
 *   {@link #permits()} that do not fit together, {@link #ttl()} or
 *   {@link #maxHold()} with {@link #leaseTime()}, {@link IfLocked#SKIP} on a method returning a
 *   primitive, a {@link #name()} that is not SpEL or refers
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
     * Empty: {@code leasehold.locked.default-ttl} (30 s unless set). Between 10 ms and 1 day. Not with
     * {@link #leaseTime()}.
     */
    String ttl() default "";

    /**
     * A fixed lease instead of the watchdog: the lock is held until the method returns, at most this
     * long, and never renewed (Redisson's {@code leaseTime}, {@link dev.leasehold.LockOptions#fixedLease}); a method
     * still running when it ends is interrupted and the call throws
     * {@link dev.leasehold.LeaseLostException}. Empty: the watchdog with {@link #ttl()}. Not together
     * with {@link #ttl()} or {@link #maxHold()}. Between 10 ms and 1 day.
     */
    String leaseTime() default "";

    /**
     * The longest the watchdog keeps renewing (ShedLock's {@code lockAtMostFor},
     * {@link dev.leasehold.LockOptions#withMaxHold}): a method still running then loses the lease; it
     * is interrupted and the call throws {@link dev.leasehold.LeaseLostException} naming maxHold.
     * Empty: no limit. Not with {@link #leaseTime()}. Between the ttl and 30 days.
     */
    String maxHold() default "";

    /**
     * How long after the acquire the lock stays held on the server even if the method returned
     * sooner (ShedLock's {@code lockAtLeastFor}, {@link dev.leasehold.LockOptions#holdAtLeast}): a
     * job on several machines whose clocks fire a moment apart then runs once, not once per machine.
     * The lease ends for this call when the method returns, as always. Empty: released at once.
     * Between 1 ms and 30 days, and not longer than {@link #leaseTime()}.
     */
    String holdAtLeast() default "";

    /** What the call does when the lock cannot be had within {@link #waitFor()}: throw, unless said otherwise. */
    IfLocked ifLocked() default IfLocked.FAIL;

    /**
     * Which lock, as the class of a {@link dev.leasehold.LockKind} (an annotation can hold a class, not
     * a sealed interface's value): {@code LockKind.Mutex.class} (exclusive, the default),
     * {@code LockKind.Fair.class} (exclusive, in arrival order), {@code LockKind.Read.class} and
     * {@code LockKind.Write.class} (the two halves of a read-write lock), or
     * {@code LockKind.Permits.class} with {@link #permits()}: one permit of a semaphore, so that at most
     * that many calls run at once across the cluster. Another class fails the bean's creation.
     *
     * <p>This replaces the starter's own enum {@code dev.leasehold.spring.LockKind}: write
     * {@code kind = LockKind.Read.class} with {@code import dev.leasehold.LockKind} where
     * {@code kind = LockKind.READ} was.
     */
    Class<? extends dev.leasehold.LockKind> kind() default dev.leasehold.LockKind.Mutex.class;

    /**
     * The semaphore's number of permits, with {@code kind = LockKind.Permits.class} only (which needs
     * it, 1 to {@link dev.leasehold.DistributedSemaphore#MAX_PERMITS}); every caller of the name must
     * give the same number, else the call throws {@link dev.leasehold.PermitsMismatchException}. 0 (the
     * default) for every other kind.
     */
    int permits() default 0;
}
