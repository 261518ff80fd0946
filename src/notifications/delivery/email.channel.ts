import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { createTransport, type Transporter } from 'nodemailer';
import { notificationsConfig } from '../../config/configuration.js';
import type { ChannelChoice } from '../notification-preferences.js';
import {
  PermanentDeliveryError,
  type NotificationChannel,
  type OutgoingNotification,
  type Recipient,
} from './notification-channel.js';

/** E-mail over SMTP (nodemailer, pooled connections); only when SMTP_URL is set. */
@Injectable()
export class EmailChannel implements NotificationChannel, OnModuleDestroy {
  readonly type = 'email' as const;
  readonly initialStatus = 'pending' as const;
  readonly configured: boolean;
  private readonly transport: Transporter | undefined;
  private readonly from: string;

  constructor(@Inject(notificationsConfig.KEY) config: ConfigType<typeof notificationsConfig>) {
    this.configured = Boolean(config.smtpUrl);
    this.from = config.mailFrom;
    if (config.smtpUrl) {
      const url = new URL(config.smtpUrl);
      url.searchParams.set('pool', 'true');
      // Short timeouts: an outage fails the attempt quickly and the worker retries later.
      url.searchParams.set('connectionTimeout', '10000');
      url.searchParams.set('greetingTimeout', '10000');
      url.searchParams.set('socketTimeout', '30000');
      this.transport = createTransport(url.toString());
    }
  }

  wanted(choice: ChannelChoice, recipient: Recipient): boolean {
    return choice.email.mode !== 'off' && recipient.email.length > 0;
  }

  async deliver(notification: OutgoingNotification, recipient: Recipient): Promise<void> {
    if (!this.transport) throw new PermanentDeliveryError('SMTP_URL is not set');
    try {
      await this.transport.sendMail({
        from: this.from,
        to: { name: recipient.displayName, address: recipient.email },
        subject: notification.subject,
        text: notification.message,
        headers: { 'X-Notification-Id': notification.id },
      });
    } catch (error) {
      const code = (error as { responseCode?: unknown }).responseCode;
      if (typeof code === 'number' && code >= 500 && code < 600) {
        throw new PermanentDeliveryError(`SMTP ${code}`);
      }
      throw error;
    }
  }

  onModuleDestroy(): void {
    this.transport?.close();
  }
}
