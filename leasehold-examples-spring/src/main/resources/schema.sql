-- tag::schema[]
CREATE TABLE IF NOT EXISTS orders (id bigint PRIMARY KEY, state text NOT NULL);
-- end::schema[]
CREATE TABLE IF NOT EXISTS reports (token bigint NOT NULL);
