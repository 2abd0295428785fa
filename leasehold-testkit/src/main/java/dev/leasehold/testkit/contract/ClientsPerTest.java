package dev.leasehold.testkit.contract;

import dev.leasehold.engine.EngineLockClient;
import org.junit.jupiter.api.AfterEach;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What a contract over whole clients needs: a new client of the backend under test, closed after each test. */
public abstract class ClientsPerTest {

    private final List<EngineLockClient> clients = Collections.synchronizedList(new ArrayList<>());

    /** A new client of the backend under test. */
    protected abstract EngineLockClient connect();

    /** A new client, closed after the test. */
    protected final EngineLockClient client() {
        EngineLockClient client = connect();
        clients.add(client);
        return client;
    }

    @AfterEach
    void closeClients() {
        clients.forEach(EngineLockClient::close);
        clients.clear();
    }
}
