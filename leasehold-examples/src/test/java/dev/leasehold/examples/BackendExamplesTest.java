package dev.leasehold.examples;

import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.etcd.EtcdLocks;
import dev.leasehold.jdbc.JdbcLocks;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redlock.RedlockLocks;
import dev.leasehold.zookeeper.ZooKeeperLocks;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/postgresql.md, docs/zookeeper.md, docs/etcd.md and docs/redlock.md: each backend's first lock. */
class BackendExamplesTest {

    @Test
    void postgresql() {
        DataSource pool = Servers.dataSource();
        // tag::postgresql[]
        try (LockClient locks = JdbcLocks.create(pool)) {            // any DataSource; or JdbcLocks.builder(pool).table("app.leases")
            try (Lease lease = locks.lock("order:123").acquire(Duration.ofSeconds(5))) {
                System.out.println("token " + lease.token());         // a sequence, in the acquiring transaction
            }
            DistributedReadWriteLock catalog = locks.readWriteLock("catalog");
            try (Lease read = catalog.readLock().acquire(Duration.ofSeconds(5))) {
                System.out.println("reading under " + read.token());
            }
        }
        // end::postgresql[]
        try (LockClient locks = JdbcLocks.create(pool); Lease lease = locks.lock("order:123").acquire(Duration.ZERO)) {
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void zookeeper() {
        String connectString = Servers.zookeeper();
        // tag::zookeeper[]
        // connectString: "zk1:2181,zk2:2181,zk3:2181" (a chroot at the end: "zk1:2181,zk2:2181/app")
        try (LockClient locks = ZooKeeperLocks.connect(connectString)) {
            try (Lease lease = locks.lock("order:123").acquire(Duration.ofSeconds(5))) {
                System.out.println("token " + lease.token());         // the czxid of the holder's node
            }
        }
        // end::zookeeper[]
        try (LockClient locks = ZooKeeperLocks.connect(connectString); Lease lease = locks.lock("order:123").acquire(Duration.ZERO)) {
            assertThat(lease.token()).isPositive();
        }
    }

    @Test
    void etcd() {
        String endpoints = Servers.etcdEndpoints();
        // tag::etcd[]
        // endpoints: "http://etcd1:2379,http://etcd2:2379,http://etcd3:2379"
        try (LockClient locks = EtcdLocks.connect(endpoints)) {
            try (Lease lease = locks.lock("order:123").acquire(Duration.ofSeconds(5))) {
                System.out.println("token " + lease.token());         // the create revision of the lock key
            }
        }
        // end::etcd[]
        try (LockClient locks = EtcdLocks.connect(endpoints); Lease lease = locks.lock("order:123").acquire(Duration.ZERO)) {
            assertThat(lease.token()).isPositive();
        }
    }

    @Test
    void redlock() {
        List<RedisServer> masters = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                masters.add(RedisServer.builder().start());
            }
            String a = masters.get(0).uri();
            String b = masters.get(1).uri();
            String c = masters.get(2).uri();
            // tag::redlock[]
            // independent masters, e.g. "redis://a:6379", "redis://b:6379", "redis://c:6379" (3 at least; 5 is usual)
            try (LockClient locks = RedlockLocks.connect(a, b, c)) {
                try (Lease lease = locks.lock("order:123").acquire(Duration.ofSeconds(5))) {
                    System.out.println("token " + lease.token());     // the maximum of a majority, written back
                }
            }
            // end::redlock[]
            try (LockClient locks = RedlockLocks.connect(a, b, c); Lease lease = locks.lock("order:123").acquire(Duration.ZERO)) {
                assertThat(lease.token()).isPositive();
            }
        } finally {
            masters.forEach(RedisServer::close);
        }
    }
}
