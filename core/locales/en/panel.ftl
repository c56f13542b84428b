# Rules of the account panel's form checks (core/src/rule/panel.rs). A message's id is its rule's with `-` for `.`.

panel-form-required = this field is required
panel-form-whole_number = must be a whole number
panel-form-date = a date YYYY-MM-DD
panel-profile-actividad = write code | description
panel-profile-timbrado = write number | start | end | types | establishment | point (six parts separated by |)
panel-profile-tipos = types separated by commas, e.g. 1,5,6
panel-certificate-no_file = no file was sent
panel-certificate-refused = refused
panel-certificate-install = { $detail }
