"""A deterministic 200-table ERP schema (ten modules, realistic names, declared foreign keys) for testing and
benchmarking table selection on schemas far larger than a 7B model's prompt.

Each table is written ``name<parent1,parent2``; its columns follow from its name: ``<name>_id`` primary key,
``<parent>_id`` foreign keys, then attributes by kind (documents get a date, status and total; lines get
quantity and price; master data gets a name and code) plus a few hand-picked extras.
"""

from __future__ import annotations

from core.schema import Column, ForeignKey, Schema, Table

__all__ = ["MODULES", "wide_schema"]

MODULES: dict[str, str] = {
    "organisation": """company; branch<company; department<branch; cost_center<department; currency;
        exchange_rate<currency; country<currency; region<country; city<region; address<city; unit_of_measure;
        uom_conversion<unit_of_measure; fiscal_year<company; fiscal_period<fiscal_year; tax_code<country;
        payment_term; language; user_account<employee; role; user_role<user_account,role""",
    "human resources": """employee<department,job_title; job_title; employment_contract<employee; salary_grade;
        payroll_run<fiscal_period; payslip<payroll_run,employee; payslip_line<payslip; leave_type;
        leave_request<employee,leave_type; attendance<employee; shift; shift_assignment<employee,shift;
        training_course; training_enrollment<employee,training_course; performance_review<employee;
        expense_claim<employee,currency; expense_line<expense_claim; benefit_plan;
        benefit_enrollment<employee,benefit_plan; job_posting<department,job_title""",
    "customer relations": """customer<country; customer_contact<customer; customer_address<customer,address;
        customer_group; customer_group_member<customer,customer_group; lead<employee,lead_source; lead_source;
        opportunity<customer,employee,opportunity_stage; opportunity_stage; campaign; campaign_member<campaign,lead;
        marketing_email<campaign; email_event<marketing_email,customer_contact; activity<employee,customer;
        meeting<employee,customer; call_log<employee,customer_contact; competitor;
        opportunity_competitor<opportunity,competitor; loyalty_program; loyalty_member<customer,loyalty_program""",
    "sales": """sales_quote<customer,employee; sales_quote_line<sales_quote,product;
        sales_order<customer,employee,payment_term; sales_order_line<sales_order,product; price_list<currency;
        price_list_item<price_list,product; discount_rule; promotion; promotion_product<promotion,product;
        sales_territory<region; sales_target<employee,sales_territory; commission_plan;
        commission<employee,sales_order,commission_plan; customer_return<sales_order,customer;
        return_line<customer_return,product; sales_channel; order_channel<sales_order,sales_channel;
        gift_card<customer; subscription<customer,product; subscription_invoice<subscription,invoice""",
    "inventory": """product<product_category,unit_of_measure; product_category; product_variant<product;
        product_attribute; product_attribute_value<product_attribute;
        variant_attribute<product_variant,product_attribute_value; warehouse<address; storage_location<warehouse;
        stock_level<product,storage_location; stock_movement<product,storage_location;
        stock_adjustment<warehouse,employee; stock_adjustment_line<stock_adjustment,product; stock_count<warehouse;
        stock_count_line<stock_count,product; lot<product; serial_number<product,lot;
        reorder_rule<product,warehouse; bin_transfer<storage_location; product_image<product;
        product_review<product,customer""",
    "purchasing": """supplier<country; supplier_contact<supplier; supplier_address<supplier,address;
        supplier_product<supplier,product; purchase_requisition<employee,department;
        requisition_line<purchase_requisition,product; request_for_quote<supplier;
        rfq_line<request_for_quote,product; purchase_order<supplier,employee,payment_term;
        purchase_order_line<purchase_order,product; goods_receipt<purchase_order,warehouse;
        goods_receipt_line<goods_receipt,product; supplier_invoice<supplier,purchase_order;
        supplier_invoice_line<supplier_invoice,product; supplier_payment<supplier_invoice;
        supplier_rating<supplier; purchase_contract<supplier; contract_price<purchase_contract,product;
        landed_cost<goods_receipt; purchase_return<purchase_order""",
    "finance": """gl_account<account_type; account_type; journal; journal_entry<journal,fiscal_period;
        journal_line<journal_entry,gl_account,cost_center; invoice<customer,sales_order,currency;
        invoice_line<invoice,product,tax_code; customer_payment<invoice,bank_account; bank_account<company,currency;
        bank_statement<bank_account; bank_statement_line<bank_statement; budget<cost_center,fiscal_year;
        budget_line<budget,gl_account; fixed_asset<asset_category,cost_center; asset_category;
        depreciation_entry<fixed_asset,fiscal_period; credit_note<invoice,customer; tax_return<tax_code,fiscal_period;
        payment_reminder<invoice; write_off<invoice""",
    "manufacturing": """bill_of_materials<product; bom_line<bill_of_materials,product; work_center<department;
        routing<product; routing_step<routing,work_center; production_order<product,bill_of_materials;
        production_operation<production_order,work_center; material_issue<production_order,product;
        production_output<production_order,lot; machine<work_center; machine_downtime<machine;
        maintenance_order<machine,employee; maintenance_schedule<machine; spare_part<product;
        quality_inspection<production_order,employee; inspection_result<quality_inspection; defect_type;
        defect<quality_inspection,defect_type; scrap_record<production_order,product; capacity_plan<work_center""",
    "logistics": """carrier; shipping_method<carrier; shipment<sales_order,carrier,warehouse;
        shipment_line<shipment,product; package<shipment; tracking_event<package; delivery_route<vehicle,driver;
        vehicle; driver<employee; delivery_stop<delivery_route,shipment; freight_rate<carrier,region;
        customs_declaration<shipment,country; incoterm; dock_appointment<warehouse,carrier;
        pick_list<sales_order,warehouse; pick_list_line<pick_list,product; pack_slip<shipment;
        return_shipment<customer_return,carrier; fuel_log<vehicle,driver; delivery_proof<delivery_stop""",
    "projects and support": """project<customer,employee; project_phase<project; task<project_phase,employee;
        task_dependency<task; timesheet<employee,task; project_expense<project,employee; milestone<project;
        project_member<project,employee; support_ticket<customer,employee,ticket_category;
        ticket_comment<support_ticket,employee; ticket_category; sla_policy; service_contract<customer,sla_policy;
        knowledge_article<employee; asset_assignment<fixed_asset,employee; document<employee;
        approval_request<employee; approval_step<approval_request,employee; notification<user_account;
        audit_log<user_account""",
}

_DOCUMENT_WORDS = (
    "order", "invoice", "quote", "payment", "claim", "return", "requisition", "receipt", "shipment", "entry",
    "request", "ticket", "note", "run", "slip", "adjustment", "count", "statement", "contract", "review",
    "inspection", "appointment", "declaration", "reminder", "off", "list", "issue", "log", "record",
)
_STATUS = ("draft", "open", "approved", "done", "cancelled")

_EXTRAS: dict[str, tuple[tuple[str, str, tuple[str, ...]], ...]] = {
    "employee": (("first_name", "text", ()), ("last_name", "text", ()), ("email", "text", ()),
                 ("hire_date", "date", ()), ("salary", "numeric(12,2)", ()),
                 ("gender", "text", ("female", "male", "other"))),
    "customer": (("name", "text", ()), ("email", "text", ()), ("phone", "text", ()),
                 ("segment", "text", ("retail", "wholesale", "corporate")), ("credit_limit", "numeric(12,2)", ())),
    "supplier": (("name", "text", ()), ("email", "text", ()), ("lead_time_days", "integer", ())),
    "product": (("sku", "text", ()), ("name", "text", ()), ("list_price", "numeric(12,2)", ()),
                ("cost_price", "numeric(12,2)", ()), ("weight_kg", "numeric(8,3)", ())),
    "warehouse": (("name", "text", ()), ("capacity_m3", "numeric(10,2)", ())),
    "stock_level": (("quantity_on_hand", "numeric(12,3)", ()), ("quantity_reserved", "numeric(12,3)", ())),
    "vehicle": (("plate_number", "text", ()), ("vehicle_type", "text", ("van", "truck", "trailer"))),
    "attendance": (("work_date", "date", ()), ("check_in", "timestamp", ()), ("check_out", "timestamp", ())),
    "timesheet": (("work_date", "date", ()), ("hours", "numeric(5,2)", ())),
    "exchange_rate": (("rate_date", "date", ()), ("rate", "numeric(14,6)", ())),
    "tracking_event": (("event_time", "timestamp", ()), ("event_type", "text", ("picked_up", "in_transit", "delivered"))),
    "machine_downtime": (("started_at", "timestamp", ()), ("ended_at", "timestamp", ()), ("reason", "text", ())),
    "product_review": (("rating", "integer", ()), ("review_text", "text", ())),
    "leave_request": (("start_date", "date", ()), ("end_date", "date", ()), ("days", "numeric(4,1)", ())),
    "fixed_asset": (("name", "text", ()), ("purchase_date", "date", ()), ("purchase_cost", "numeric(14,2)", ())),
}


def _parse() -> list[tuple[str, str, tuple[str, ...]]]:
    out: list[tuple[str, str, tuple[str, ...]]] = []
    for module, spec in MODULES.items():
        for item in spec.split(";"):
            name, _, parents = item.strip().partition("<")
            out.append((module, name.strip(), tuple(p.strip() for p in parents.split(",") if p.strip())))
    return out


def _attributes(name: str, has_parents: bool) -> list[Column]:
    if name in _EXTRAS:
        return [Column(n, t, value_hints=h) for n, t, h in _EXTRAS[name]]
    last = name.rsplit("_", 1)[-1]
    if last == "line":
        return [Column("quantity", "numeric(12,3)"), Column("unit_price", "numeric(12,2)"),
                Column("line_total", "numeric(14,2)")]
    if last in _DOCUMENT_WORDS or name.endswith(_DOCUMENT_WORDS):
        return [Column(f"{last}_number", "text"), Column(f"{last}_date", "date"),
                Column("status", "text", value_hints=_STATUS), Column("total_amount", "numeric(14,2)"),
                Column("created_at", "timestamp")]
    cols = [Column("name", "text", nullable=False), Column("code", "text")]
    if not has_parents:
        cols.append(Column("is_active", "boolean"))
    cols.append(Column("created_at", "timestamp"))
    return cols


def wide_schema() -> Schema:
    """The 200-table ERP schema (PostgreSQL dialect, all in ``public``)."""
    spec = _parse()
    names = {n for _, n, _ in spec}
    assert len(spec) == len(names) == 200, (len(spec), len(names))
    tables: list[Table] = []
    for module, name, parents in spec:
        pk = f"{name}_id"
        cols = [Column(pk, "integer", nullable=False)]
        fks: list[ForeignKey] = []
        for parent in parents:
            assert parent in names, parent
            cols.append(Column(f"{parent}_id", "integer"))
            fks.append(ForeignKey((f"{parent}_id",), parent, (f"{parent}_id",)))
        cols.extend(_attributes(name, bool(parents)))
        tables.append(
            Table(
                name=name,
                schema="public",
                columns=tuple(cols),
                primary_key=(pk,),
                foreign_keys=tuple(fks),
                comment=f"{module.capitalize()} module",
            )
        )
    return Schema(dialect="postgres", tables=tuple(tables), database_id="wide_erp")
