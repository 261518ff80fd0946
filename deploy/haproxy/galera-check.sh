#!/bin/sh
# HAProxy external check ($3 = node address, $4 = port): up only while the node is Synced (wsrep_local_state 4).
# It logs in as haproxy_check (no password, no privileges: CREATE USER 'haproxy_check'@'<haproxy host>'),
# or with the [client] options of /etc/haproxy/galera-check.cnf when that file exists.
defaults=/etc/haproxy/galera-check.cnf
if [ -r "$defaults" ]; then login="--defaults-extra-file=$defaults"; else login="--user=haproxy_check"; fi
state=$(mariadb "$login" --connect-timeout=1 -h "$3" -P "$4" -N -B -e "SHOW GLOBAL STATUS LIKE 'wsrep_local_state'" 2>/dev/null | cut -f2)
[ "$state" = 4 ]
