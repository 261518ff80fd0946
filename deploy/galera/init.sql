-- Runs once, on the first start of the bootstrap node: HAProxy's synced check logs in as this user.
CREATE USER IF NOT EXISTS 'haproxy_check'@'%';
