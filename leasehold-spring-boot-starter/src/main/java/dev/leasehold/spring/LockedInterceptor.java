package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.LeaseSource;
import dev.leasehold.LockClient;
import dev.leasehold.LockClientClosedException;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.LockUnavailableException;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Runs a {@link Locked} method under its lock, through
 * {@link dev.leasehold.DistributedLock#call(java.time.Duration, java.util.concurrent.Callable)}: so
 * {@link Lease#current()} is bound while the method runs, the thread is interrupted if the lease is
 * lost, and the method's exceptions surface unchanged; a lock that cannot be had is thrown again on
 * the caller's thread naming the method ({@link AcquireFailures}), or, with {@link IfLocked#SKIP},
 * the call returns without running the method ({@code tryCall}). The future an
 * {@code @Async} method returns (the only methods allowed to return one) is waited for under the
 * lock, so work the body left pending still holds it.
 */
final class LockedInterceptor implements MethodInterceptor {

    private static final Logger LOG = LoggerFactory.getLogger(LockedInterceptor.class);

    private final LockedMethods methods;
    private final Supplier<LockClient> client;
    private final BeanFactory beanFactory;

    /**
     * @param client the application's lock client, looked up at the first call (not when the
     *               proxies are made, which would connect before the application's beans exist)
     */
    LockedInterceptor(LockedMethods methods, Supplier<LockClient> client, BeanFactory beanFactory) {
        this.methods = methods;
        this.client = client;
        this.beanFactory = beanFactory;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Optional<LockedMethod> found = methods.forCall(invocation.getMethod(),
                target == null ? null : AopUtils.getTargetClass(target));
        if (found.isEmpty()) {
            return invocation.proceed();
        }
        LockedMethod locked = found.get();
        Object[] args = invocation.getArguments();
        String name = locked.name().evaluate(target, args, beanFactory);
        AtomicBoolean ran = new AtomicBoolean();
        try {
            LeaseSource lock = LockedKind.on(client.get(), locked.kind(), name, locked.options());
            Callable<Object> work = () -> {
                ran.set(true);
                if (locked.leaseIndex() >= 0) {
                    args[locked.leaseIndex()] = Lease.current();
                }
                Object result = proceed(invocation);
                if (result instanceof Future<?> pending) {
                    awaitUnderTheLock(pending);
                }
                return result;
            };
            if (locked.ifLocked() == IfLocked.SKIP) {
                return lock.tryCall(locked.waitFor(), work, () -> skipped(locked, name));
            }
            return lock.call(locked.waitFor(), work);
        } catch (LockClientClosedException closed) {
            if (ran.get() || locked.ifLocked() != IfLocked.SKIP) {
                throw closed;
            }
            return skippedAtShutdown(locked, name);
        } catch (LockTimeoutException | LockUnavailableException notAcquired) {
            // Thrown by the method itself (say, by a lock it takes): its own exception, unchanged.
            if (ran.get()) {
                throw notAcquired;
            }
            throw AcquireFailures.named(notAcquired, LockNameExpression.describe(locked.method()), name);
        }
    }

    /**
     * The client was closed before the call got the lock: the application is shutting down (the
     * context closes it after the {@code @Locked} beans, but a scheduled call may already be under
     * way). For a {@link IfLocked#SKIP} job that is one more run it need not make.
     */
    private static Object skippedAtShutdown(LockedMethod locked, String name) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("Skipped {}: the lock client is closed (the application is shutting down), lock '{}'",
                    LockNameExpression.describe(locked.method()), name);
        }
        return locked.skippedResult();
    }

    /** Another holder kept the lock: the call returns without running the method, and says so at DEBUG only. */
    private static Object skipped(LockedMethod locked, String name) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("Skipped {}: the lock '{}' is held elsewhere (not acquired within {})",
                    LockNameExpression.describe(locked.method()), name, locked.waitFor());
        }
        return locked.skippedResult();
    }

    /**
     * Waits for the work an {@code @Async} method's future stands for, on the executor's thread (which
     * Spring's async advice blocks on that future right after, anyway). Its outcome stays in the future
     * for Spring to hand on; a lost lease interrupts the wait, cancels the work, and the call throws
     * {@link dev.leasehold.LeaseLostException}.
     */
    private static void awaitUnderTheLock(Future<?> pending) throws InterruptedException {
        try {
            pending.get();
        } catch (ExecutionException | CancellationException outcome) {
            // Kept in the future: Spring's async advice unwraps it for the caller.
        } catch (InterruptedException lost) {
            pending.cancel(true);
            throw lost;
        }
    }

    /** {@link MethodInvocation#proceed()} inside a {@code Callable}, which may throw only exceptions. */
    private static Object proceed(MethodInvocation invocation) throws Exception {
        try {
            return invocation.proceed();
        } catch (Exception | Error thrown) {
            throw thrown;
        } catch (Throwable other) {
            throw new UndeclaredThrowableException(other);
        }
    }
}
