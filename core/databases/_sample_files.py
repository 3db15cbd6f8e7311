"""The sample e-commerce data as files a person might export: customers as an Excel workbook, orders as CSV, so
"ask your spreadsheet" can be tried in one command (``cairn sample-files``)."""

from __future__ import annotations

import csv
import os
import tempfile
from datetime import date
from pathlib import Path

from core.databases.embedded import sample_rows
from core.errors import ConfigError

__all__ = ["write_sample_files"]


def write_sample_files(folder: Path, created: date | None = None) -> list[Path]:
    """``customers.xlsx`` and ``orders.csv`` in ``folder`` (made if missing); each written whole, then renamed."""
    from openpyxl import Workbook

    customers, orders = sample_rows(created or date.today())
    try:
        folder.mkdir(parents=True, exist_ok=True)
        book = Workbook(write_only=True)
        sheet = book.create_sheet("customers")
        sheet.append(["customer_id", "name", "email", "city", "country", "segment"])
        for row in customers:
            sheet.append(list(row))
        xlsx = folder / "customers.xlsx"
        fd, partial = tempfile.mkstemp(prefix=".customers-", suffix=".xlsx", dir=folder)
        os.close(fd)
        book.save(partial)
        os.replace(partial, xlsx)
        fd, partial = tempfile.mkstemp(prefix=".orders-", suffix=".csv", dir=folder)
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out)
            writer.writerow(["order_id", "customer_id", "status", "order_date", "total_amount", "payment_method"])
            writer.writerows(orders)
        csv_path = folder / "orders.csv"
        os.replace(partial, csv_path)
    except OSError as exc:
        raise ConfigError(f"Cannot write the sample files to {folder}: {exc.strerror or exc}.",
                          hint="Choose a folder you can write to, with some free space.") from exc
    return [xlsx, csv_path]
