#ifndef NOWETL_CMARIADB_SHIM_H
#define NOWETL_CMARIADB_SHIM_H
#include <mysql.h>
#include <errmsg.h>
#include <mysqld_error.h>

/* mysql_optionsv is variadic, which Swift cannot call: one typed wrapper per kind of option value. */
static inline int nowetl_mysql_option_uint(MYSQL *mysql, enum mysql_option option, unsigned int value) {
    return mysql_optionsv(mysql, option, (const void *)&value);
}
static inline int nowetl_mysql_option_bool(MYSQL *mysql, enum mysql_option option, my_bool value) {
    return mysql_optionsv(mysql, option, (const void *)&value);
}
static inline int nowetl_mysql_option_string(MYSQL *mysql, enum mysql_option option, const char *value) {
    return mysql_optionsv(mysql, option, (const void *)value);
}

/* The status flags of the server's last answer (SERVER_STATUS_IN_TRANS, …); 0 when unknown. */
static inline unsigned int nowetl_mysql_server_status(MYSQL *mysql) {
    unsigned int status = 0;
    if (mariadb_get_infov(mysql, MARIADB_CONNECTION_SERVER_STATUS, &status) != 0) return 0;
    return status;
}
#endif
