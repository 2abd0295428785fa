package dev.leasehold.examples.spring;

// tag::service[]
import dev.leasehold.Lease;
import dev.leasehold.jdbc.JdbcFenceGuard;
import dev.leasehold.spring.Locked;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import javax.sql.DataSource;

@Service
public class Shipping {
    private final JdbcFenceGuard guard = new JdbcFenceGuard();   // table leasehold_fence
    private final DataSource dataSource;
    private final JdbcTemplate jdbc;

    public Shipping(DataSource dataSource, JdbcTemplate jdbc) {
        this.dataSource = dataSource;
        this.jdbc = jdbc;
    }

    /** Under the Redis lock order:ID; the transaction begins after the lock is held and commits before it is released. */
    @Locked(name = "'order:' + #orderId", waitFor = "5s")
    @Transactional
    public void ship(long orderId) {
        guard.on(DataSourceUtils.getConnection(dataSource))    // this transaction's connection
                .admit("order:" + orderId, Lease.current(),     // StaleTokenException: rolled back
                        () -> jdbc.update("UPDATE orders SET state = 'shipped' WHERE id = ?", orderId));
    }
}
// end::service[]
