"""What the guard lets a query read of PostgreSQL's catalogue: the pg_* functions that only describe objects and
values (every other pg_* function is denied), the catalogue relations outside "the data" that are denied, and the
functions of any database that a query may not call."""

from __future__ import annotations

__all__ = ["ALLOWED_PG_FUNCTIONS", "DENIED_CALLS", "DENIED_FUNCTIONS", "DENIED_PREFIXES", "DENIED_RELATIONS"]

# pg_* is denied by default; these only describe objects and values.
ALLOWED_PG_FUNCTIONS = frozenset(
    {
        "pg_typeof", "pg_size_pretty", "pg_size_bytes", "pg_column_size", "pg_relation_size",
        "pg_table_size", "pg_indexes_size", "pg_total_relation_size", "pg_database_size",
        "pg_table_is_visible", "pg_type_is_visible", "pg_function_is_visible", "pg_get_expr",
        "pg_get_userbyid", "pg_get_serial_sequence", "pg_get_function_arguments", "pg_get_function_result",
        "pg_get_function_identity_arguments", "pg_get_keywords", "pg_encoding_to_char",
        "pg_client_encoding", "pg_backend_pid", "pg_postmaster_start_time", "pg_conf_load_time",
        "pg_is_in_recovery", "pg_has_role", "pg_input_is_valid", "pg_describe_object", "pg_collation_for",
        "pg_options_to_table", "pg_index_column_has_property", "pg_index_has_property",
        "pg_indexam_has_property", "pg_column_compression", "pg_jit_available",
    }
)  # fmt: skip
# Catalogue relations outside "the data": credentials, server config files, other sessions' SQL text.
DENIED_RELATIONS = frozenset(
    {
        "pg_authid", "pg_shadow", "pg_user_mapping", "pg_user_mappings", "pg_hba_file_rules",
        "pg_ident_file_mappings", "pg_file_settings", "pg_stat_activity", "pg_stat_statements",
        "pg_stat_ssl", "pg_stat_gssapi",
    }
)  # fmt: skip

# Functions with side effects, that read server files, sleep, or run SQL given as a string.
DENIED_FUNCTIONS = frozenset(
    {
        "set_config", "nextval", "setval", "txid_current", "ts_stat", "ts_rewrite",
        "load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "loread", "lowrite",
        # MySQL/MariaDB: files, sleeping, locks, replication waits
        "sleep", "benchmark", "load_file", "get_lock", "release_lock", "release_all_locks", "is_free_lock",
        "is_used_lock", "master_pos_wait", "source_pos_wait", "master_gtid_wait", "sys_eval", "sys_exec",
    }
)  # fmt: skip
DENIED_PREFIXES = (
    "lo_", "dblink", "query_to_xml", "table_to_xml", "schema_to_xml", "database_to_xml", "cursor_to_xml",
    # DuckDB: files, other databases and settings reached from a query (its configuration denies them too)
    "read_", "parquet_", "sniff_", "duckdb_", "which_secret", "sqlite_scan", "sqlite_attach", "postgres_scan",
    "postgres_attach", "postgres_query", "postgres_execute", "mysql_scan", "mysql_query", "mysql_execute",
    "iceberg_", "delta_scan", "st_read", "load_aws", "json_execute", "query", "getenv",
)  # fmt: skip
DENIED_CALLS = frozenset({"glob"})  # DuckDB's glob('/path/*') lists files; the GLOB operator of SQLite stays
