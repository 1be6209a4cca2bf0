"""Reading and writing records: format readers, labelled-pair readers, atomic writers."""
