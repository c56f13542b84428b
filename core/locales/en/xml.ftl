# Rules of XML reading (core/src/rule/xml.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

# What the tokenizer found wrong (rule xml.syntax, parameter `what`).
-xml-lex-ref_unclosed = unclosed or empty reference
-xml-lex-unclosed_pi = unclosed processing instruction
-xml-lex-unclosed_end_tag = unclosed end tag
-xml-lex-end_tag_mismatch = end tag does not match its start tag
-xml-lex-end_tag_alone = end tag without a start tag
-xml-lex-unclosed_comment = unclosed comment
-xml-lex-unclosed_cdata = unclosed CDATA section
-xml-lex-unknown_markup = unknown markup after '<!'
-xml-lex-bad_element_name = bad element name
-xml-lex-unclosed_start_tag = unclosed start tag
-xml-lex-unclosed_attr_value = unclosed attribute value
-xml-lex-attr_separator = attributes must be separated by whitespace
-xml-lex-attr_syntax = bad attribute syntax
-xml-lex-attr_name = bad attribute name
-xml-lex-attr_lt = '<' in an attribute value
-xml-lex-attr_ref_unclosed = unclosed reference in an attribute value
-xml-lex-attr_duplicate = duplicate attribute

xml-syntax = XML is not well-formed: { $what } at byte { $at }
xml-doctype = DOCTYPE is not allowed (no DTDs or entity declarations)
xml-cdata_outside = CDATA outside the root element
xml-text_outside = text outside the root element
xml-unexpected_end = unexpected end of document
xml-root_twice = more than one root element
xml-unbalanced_end = unbalanced end tag
xml-prefix_undeclared = namespace prefix { $prefix } is not declared
xml-prefix_empty_uri = namespace prefix { $prefix } bound to an empty URI
xml-entity_undeclared = undeclared entity '&{ $name };'
xml-char_ref = bad character reference '&{ $name };'
xml-char_ref_range = character reference '&{ $name };' is not an XML character
xml-ref_unterminated = unterminated reference
xml-attr_ref_unterminated = unterminated reference in attribute
xml-attr_lt = '<' in an attribute value
xml-attr_value = bad attribute value: { $reason }
xml-depth = elements nested deeper than { $max }
xml-namespaces = more than { $max } namespace declarations in scope
xml-too_large = XML is { $size } bytes; the limit is { $max }
xml-reader = not well-formed XML at byte { $at }: { $detail }
xml-attr = bad attribute: { $detail }
xml-name_utf8 = element name is not UTF-8
xml-no_root = no root element
xml-root = the root element must be { $want } in namespace http://ekuatia.set.gov.py/sifen/xsd, found { $name }
xml-malformed = { $reason }
xml-elements = more than { $max } elements

# The form a DE value must have (rule xml.value, parameter `what`).
-xml-value-integer = an integer in range
-xml-value-decimal = a decimal number
-xml-value-date = a date YYYY-MM-DD
-xml-value-datetime = a date-time YYYY-MM-DDThh:mm:ss

xml-utf8 = XML is not valid UTF-8 (byte { $at })
xml-element_missing = required element { $name } is missing
xml-element_empty = required element { $name } is empty
xml-value = '{ $value }' is not { $what }
xml-version = unsupported dVerFor '{ $value }': kuatia reads version 150
xml-de_id = DE has no Id attribute (the CDC)
xml-de_dv = dDVId '{ $dv }' is not the last digit of the CDC { $cdc }
xml-tipo = document type { $tipo } is not one kuatia handles (1, 4, 5, 6, 7)
xml-items = a DE needs at least one gCamItem
