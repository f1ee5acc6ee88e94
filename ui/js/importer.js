// The offer to import an earlier ClawMux's conversations found in the data folder: made once per page,
// and harmless to accept twice (the hub imports each conversation once).

import { $ } from './dom.js';
import { Command } from './names.js';

export class ImportOffer {
  constructor(backend) {
    this.backend = backend;
    this.offered = false;
    $('import-go').addEventListener('click', () => this.run());
    $('import-later').addEventListener('click', () => { $('import-offer').hidden = true; });
  }

  /** Asks the hub whether there is anything to import, and offers it. */
  async offer() {
    if (this.offered) return;
    this.offered = true;
    const caps = await this.backend.command({ command: Command.CAPABILITIES }).catch(() => null);
    if (!caps?.to_import) return;
    $('import-text').textContent =
      `Found ${caps.to_import} agent conversation(s) of an earlier ClawMux in the data folder. Import them?`;
    $('import-offer').hidden = false;
  }

  async run() {
    $('import-go').disabled = true;
    try {
      const report = await this.backend.command({ command: Command.IMPORT });
      const failed = report.filter((r) => r.error);
      const imported = report.length - failed.length;
      $('import-text').textContent = [
        `Imported ${imported} agent conversation(s).`,
        ...failed.map((r) => `${r.agent}: not imported: ${r.error}`),
      ].join(' ');
      $('import-go').hidden = true;
      $('import-later').textContent = 'Close';
    } catch (e) {
      $('import-text').textContent = `Not imported: ${e.message}`;
    } finally {
      $('import-go').disabled = false;
    }
  }
}
