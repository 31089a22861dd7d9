"""The plan: model, numbers and ranges, GPU catalog, loading, schema, messages."""
