"""What the guard lets a query read of PostgreSQL's catalogue: the pg_* functions that only describe objects and
values (every other pg_* function is denied), and the catalogue relations outside "the data" that are denied."""

from __future__ import annotations

__all__ = ["ALLOWED_PG_FUNCTIONS", "DENIED_RELATIONS"]

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
