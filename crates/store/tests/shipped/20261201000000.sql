UPDATE phone_settings SET push_contact = 'mailto:u@example.org';
