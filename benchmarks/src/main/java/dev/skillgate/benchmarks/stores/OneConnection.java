package dev.skillgate.benchmarks.stores;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A one-connection "pool" for the harness: every {@code getConnection} hands out the same open
 * connection and {@code close} returns it, as a host's pool (HikariCP) would. Target and baseline use
 * the same one, so neither pays for a new connection per operation. Single-threaded use only.
 */
final class OneConnection implements DataSource {
    private final Connection physical;
    private final Connection handle;

    OneConnection(DataSource source) throws SQLException {
        this.physical = source.getConnection();
        this.handle = (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        if (!physical.getAutoCommit()) {
                            physical.rollback();
                            physical.setAutoCommit(true);
                        }
                        return null;
                    }
                    try {
                        return method.invoke(physical, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public Connection getConnection() {
        return handle;
    }

    @Override
    public Connection getConnection(String user, String password) {
        return handle;
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
