#!/bin/sh
# HAProxy external check ($3 = node address, $4 = port): up only while the node is Synced (wsrep_local_state 4).
# Credentials, when the node needs them: /etc/haproxy/galera-check.cnf ([client] user=… password=…).
defaults=/etc/haproxy/galera-check.cnf
[ -r "$defaults" ] && set -- "$@" "--defaults-extra-file=$defaults"
state=$(mariadb ${5:+"$5"} --connect-timeout=1 -h "$3" -P "$4" -N -B -e "SHOW GLOBAL STATUS LIKE 'wsrep_local_state'" 2>/dev/null | cut -f2)
[ "$state" = 4 ]
