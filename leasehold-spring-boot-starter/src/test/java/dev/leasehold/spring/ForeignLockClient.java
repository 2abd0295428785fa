package dev.leasehold.spring;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;

/** An application's own {@link LockClient} of a type the starter does not know (it wraps another). */
final class ForeignLockClient implements LockClient {

    private final LockClient delegate;

    ForeignLockClient(LockClient delegate) {
        this.delegate = delegate;
    }

    @Override
    public DistributedLock lock(String name) {
        return delegate.lock(name);
    }

    @Override
    public DistributedLock lock(String name, LockOptions options) {
        return delegate.lock(name, options);
    }

    @Override
    public String describe() {
        return "foreign " + delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
